// The /explore page: draws the provenance subgraph of a memory as layered SVG.
//
// Hand-written on purpose: no framework, no CDN, nothing fetched but /graphql.
// Every piece of data reaches the DOM through textContent or setAttribute on
// elements made with createElement(NS), never through innerHTML, so memory
// text can hold any markup without running it.
"use strict";

(() => {
  const KEY_STORAGE = "hippograph.explore.apiKey";
  const QUERY = `query Explore($id: ID!) {
  provenance(id: $id, depth: 4, direction: DOWN) {
    root { id }
    nodes {
      __typename
      id
      ... on Memory { kind content }
      ... on MemUnit { summary }
      ... on Message { speaker content }
    }
    edges { source type target }
  }
}`;
  // One colour per GraphQL type; memories of every kind are re-rootable.
  const COLOURS = {
    SemanticMemory: "#a5c8ec",
    EpisodicMemory: "#b5e0a8",
    ProfileMemory: "#dcc4e6",
    EventMemory: "#f9cf9f",
    Reflection: "#f4a9aa",
    MemUnit: "#f6e59b",
    Message: "#d9dde1",
  };
  const OTHER_COLOUR = "#bfe3df";
  const NODE_W = 190;
  const NODE_H = 44;
  const GAP_X = 26;
  const WAYPOINT_W = 12;
  const GAP_Y = 84;
  const PAD = 20;
  const LABEL_CHARS = 30;

  const form = document.getElementById("explore");
  const idInput = document.getElementById("node-id");
  const keyInput = document.getElementById("key");
  const status = document.getElementById("status");
  const legend = document.getElementById("legend");
  const svg = document.getElementById("graph");
  // The HTML parser puts <svg> in the SVG namespace: read it from there
  // rather than spelling out the namespace's URL in this file.
  const SVG_NS = svg.namespaceURI;
  let generation = 0; // answers to superseded requests are dropped

  function svgElement(name, attributes) {
    const element = document.createElementNS(SVG_NS, name);
    for (const [attribute, value] of Object.entries(attributes || {})) {
      element.setAttribute(attribute, String(value));
    }
    return element;
  }

  function setStatus(state, text) {
    status.dataset.state = state;
    status.textContent = text;
  }

  function isMemory(node) {
    return typeof node.kind === "string";
  }

  function fullText(node) {
    if (node.__typename === "Message") return `${node.speaker}: ${node.content}`;
    if (node.__typename === "MemUnit") return node.summary || "";
    return node.content || "";
  }

  function truncate(text, limit) {
    const chars = Array.from(text.replace(/\s+/g, " ").trim()); // whole code points
    return chars.length > limit ? chars.slice(0, limit - 1).join("") + "…" : chars.join("");
  }

  async function fetchProvenance(id, key) {
    const headers = { "Content-Type": "application/json", Accept: "application/json" };
    if (key) headers.Authorization = `Bearer ${key}`;
    let response;
    try {
      response = await fetch("/graphql", {
        method: "POST",
        headers,
        body: JSON.stringify({ query: QUERY, variables: { id } }),
      });
    } catch (error) {
      throw new Error(`Could not reach the server: ${error.message}`);
    }
    let body = null;
    try {
      body = await response.json();
    } catch {
      body = null; // an error page that is not JSON: the status says enough
    }
    const problems = (body && Array.isArray(body.errors) ? body.errors : []).map((e) => {
      const code = e.extensions && e.extensions.code ? ` (${e.extensions.code})` : "";
      return `${e.message}${code}`;
    });
    if (!response.ok) {
      const detail = problems.length ? `: ${problems.join("; ")}` : "";
      throw new Error(`HTTP ${response.status} ${response.statusText}${detail}`);
    }
    if (problems.length) throw new Error(problems.join("; "));
    if (!body || !body.data) throw new Error("The server answered without data.");
    return body.data.provenance;
  }

  // Rows by hops from the root (breadth-first along the edges), except that
  // raw messages all go to the bottom row: they are where every path ends.
  function rowsOf(provenance, outgoing) {
    const hops = new Map([[provenance.root.id, 0]]);
    const queue = [provenance.root.id];
    while (queue.length) {
      const id = queue.shift();
      for (const next of outgoing.get(id) || []) {
        if (!hops.has(next)) {
          hops.set(next, hops.get(id) + 1);
          queue.push(next);
        }
      }
    }
    let deepestOther = -1;
    let deepestMessage = 0;
    for (const node of provenance.nodes) {
      if (!hops.has(node.id)) hops.set(node.id, 1); // not reachable: cannot happen, but draw it
      const depth = hops.get(node.id);
      if (node.__typename === "Message") deepestMessage = Math.max(deepestMessage, depth);
      else deepestOther = Math.max(deepestOther, depth);
    }
    const messageRow = Math.max(deepestMessage, deepestOther + 1);
    const row = new Map();
    for (const node of provenance.nodes) {
      row.set(node.id, node.__typename === "Message" ? messageRow : hops.get(node.id));
    }
    return row;
  }

  // A layered (Sugiyama-style) drawing: an edge that spans several rows gets
  // a narrow waypoint in each row it crosses, so that it is routed between
  // the nodes rather than under them; each row is ordered by the mean
  // position of what points into it (the barycentre heuristic, which keeps
  // crossings down), ties broken by id so a graph is always drawn the same.
  function layout(provenance) {
    const known = new Set(provenance.nodes.map((n) => n.id));
    const edges = provenance.edges.filter((e) => known.has(e.source) && known.has(e.target));
    const outgoing = new Map();
    for (const edge of edges) {
      if (!outgoing.has(edge.source)) outgoing.set(edge.source, []);
      outgoing.get(edge.source).push(edge.target);
    }
    const rowOf = rowsOf(provenance, outgoing);
    const rows = [];
    const place = (item, index) => {
      while (rows.length <= index) rows.push([]);
      rows[index].push(item);
    };
    const parents = new Map(); // item id -> ids of the items drawn above it on a route
    const link = (from, to) => {
      if (!parents.has(to)) parents.set(to, []);
      parents.get(to).push(from);
    };
    for (const node of provenance.nodes) place({ id: node.id, width: NODE_W }, rowOf.get(node.id));
    const routes = edges.map((edge, i) => {
      const top = rowOf.get(edge.source);
      const bottom = rowOf.get(edge.target);
      const waypoints = [];
      let previous = edge.source;
      for (let r = top + 1; r < bottom; r++) {
        const id = `edge ${i} row ${r}`; // a space never occurs in node ids
        place({ id, width: WAYPOINT_W }, r);
        link(previous, id);
        waypoints.push(id);
        previous = id;
      }
      link(previous, edge.target);
      return { edge, waypoints };
    });
    const centre = new Map();
    const positions = new Map();
    const widthOf = (row) => row.reduce((sum, item) => sum + item.width, 0) + GAP_X * (row.length - 1);
    const width = Math.max(...rows.map(widthOf)) + 2 * PAD;
    rows.forEach((row, index) => {
      const mean = (item) => {
        const above = (parents.get(item.id) || []).filter((p) => centre.has(p));
        if (!above.length) return Number.POSITIVE_INFINITY;
        return above.reduce((sum, p) => sum + centre.get(p), 0) / above.length;
      };
      const keyed = row.map((item) => ({ item, at: mean(item) }));
      keyed.sort((a, b) => a.at - b.at || (a.item.id < b.item.id ? -1 : 1));
      let x = (width - widthOf(row)) / 2;
      for (const { item } of keyed) {
        centre.set(item.id, x + item.width / 2);
        positions.set(item.id, { x, y: PAD + index * (NODE_H + GAP_Y) });
        x += item.width + GAP_X;
      }
    });
    const height = rows.length * (NODE_H + GAP_Y) - GAP_Y + 2 * PAD;
    const lines = routes.map(({ edge, waypoints }) => ({
      edge,
      through: waypoints.map((id) => ({ x: centre.get(id), y: positions.get(id).y })),
    }));
    return { positions, lines, width, height };
  }

  // Bottom of the source, down through each waypoint's row, to the top of
  // the target. The label sits on the last stretch: a node's outgoing edges
  // leave from one point, so labels near their sources would pile up.
  function drawEdge(group, edge, from, to, through) {
    const points = [{ x: from.x + NODE_W / 2, y: from.y + NODE_H }];
    for (const waypoint of through) {
      points.push({ x: waypoint.x, y: waypoint.y }, { x: waypoint.x, y: waypoint.y + NODE_H });
    }
    points.push({ x: to.x + NODE_W / 2, y: to.y });
    let d = `M ${points[0].x} ${points[0].y}`;
    for (let i = 1; i < points.length; i += 2) {
      const [a, b] = [points[i - 1], points[i]];
      const bend = Math.max(30, Math.abs(b.y - a.y) / 2);
      if (i > 1) d += ` L ${a.x} ${a.y}`;
      d += ` C ${a.x} ${a.y + bend}, ${b.x} ${b.y - bend}, ${b.x} ${b.y}`;
    }
    group.appendChild(
      svgElement("path", {
        class: "edge",
        d,
        "marker-end": "url(#arrow)",
        "data-edge-type": edge.type,
      }),
    );
    const [a, b] = points.slice(-2);
    const label = svgElement("text", { class: "edge-label", x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 });
    label.textContent = edge.type;
    group.appendChild(label);
  }

  function drawNode(group, node, at, isRoot) {
    const canReroot = !isRoot && (isMemory(node) || node.__typename === "MemUnit");
    const classes = ["node", `type-${node.__typename}`];
    if (isRoot) classes.push("root");
    if (canReroot) classes.push("clickable");
    const g = svgElement("g", {
      class: classes.join(" "),
      transform: `translate(${at.x}, ${at.y})`,
      "data-node-id": node.id,
      "data-node-type": node.__typename,
    });
    const title = svgElement("title");
    const text = fullText(node);
    title.textContent = `${node.__typename} ${node.id}\n\n${text}`;
    g.appendChild(title);
    const fill = COLOURS[node.__typename] || OTHER_COLOUR;
    g.appendChild(svgElement("rect", { width: NODE_W, height: NODE_H, rx: 6, fill }));
    const kind = svgElement("text", { class: "node-type", x: 8, y: 15 });
    kind.textContent = isRoot ? `${node.__typename} · root` : node.__typename;
    g.appendChild(kind);
    const label = svgElement("text", { class: "node-label", x: 8, y: 33 });
    label.textContent = truncate(text, LABEL_CHARS);
    g.appendChild(label);
    if (canReroot) {
      g.setAttribute("tabindex", "0");
      g.setAttribute("role", "button");
      g.setAttribute("aria-label", `Explore from ${node.__typename} ${node.id}`);
      g.addEventListener("click", () => go(node.id));
      g.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          go(node.id);
        }
      });
    }
    group.appendChild(g);
  }

  function drawLegend(nodes) {
    legend.replaceChildren();
    const types = [...new Set(nodes.map((n) => n.__typename))].sort();
    for (const type of types) {
      const item = document.createElement("li");
      const swatch = svgElement("svg", { width: 14, height: 14, "aria-hidden": "true" });
      swatch.appendChild(
        svgElement("rect", { width: 14, height: 14, rx: 3, fill: COLOURS[type] || OTHER_COLOUR }),
      );
      item.appendChild(swatch);
      item.appendChild(document.createTextNode(type));
      legend.appendChild(item);
    }
  }

  function draw(provenance) {
    svg.replaceChildren();
    const { positions, lines, width, height } = layout(provenance);
    svg.setAttribute("width", width);
    svg.setAttribute("height", height);
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    const defs = svgElement("defs");
    const marker = svgElement("marker", {
      id: "arrow",
      viewBox: "0 0 10 10",
      refX: 10,
      refY: 5,
      markerWidth: 7,
      markerHeight: 7,
      orient: "auto",
    });
    marker.appendChild(svgElement("path", { class: "edge-arrow", d: "M 0 0 L 10 5 L 0 10 z" }));
    defs.appendChild(marker);
    svg.appendChild(defs);
    const edges = svgElement("g", { class: "edges" });
    for (const { edge, through } of lines) {
      drawEdge(edges, edge, positions.get(edge.source), positions.get(edge.target), through);
    }
    svg.appendChild(edges);
    const nodes = svgElement("g", { class: "nodes" });
    for (const node of provenance.nodes) {
      drawNode(nodes, node, positions.get(node.id), node.id === provenance.root.id);
    }
    svg.appendChild(nodes);
    drawLegend(provenance.nodes);
  }

  function reset() {
    svg.replaceChildren();
    legend.replaceChildren();
    svg.setAttribute("width", 0);
    svg.setAttribute("height", 0);
  }

  async function show(id) {
    const mine = ++generation;
    const key = keyInput.value.trim();
    if (!key) {
      reset();
      setStatus("error", "Enter an API key: the API answers only with one.");
      return;
    }
    setStatus("loading", `Loading ${id}…`);
    try {
      const provenance = await fetchProvenance(id, key);
      if (mine !== generation) return;
      if (!provenance) {
        reset();
        setStatus("error", `${id}: not found or not yours.`);
        return;
      }
      draw(provenance);
      const n = provenance.nodes.length;
      const m = provenance.edges.length;
      setStatus("done", `${n} node${n === 1 ? "" : "s"}, ${m} edge${m === 1 ? "" : "s"}.`);
    } catch (error) {
      if (mine !== generation) return;
      reset();
      setStatus("error", error.message);
    }
  }

  function idInAddress() {
    return (new URLSearchParams(window.location.search).get("id") || "").trim();
  }

  function go(id) {
    idInput.value = id;
    if (idInAddress() !== id) {
      const address = new URL(window.location.href);
      address.searchParams.set("id", id);
      window.history.pushState({ id }, "", address);
    }
    show(id);
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const key = keyInput.value.trim();
    if (key) localStorage.setItem(KEY_STORAGE, key);
    else localStorage.removeItem(KEY_STORAGE);
    const id = idInput.value.trim();
    if (id) go(id);
  });

  window.addEventListener("popstate", () => {
    const id = idInAddress();
    idInput.value = id;
    if (id) show(id);
  });

  keyInput.value = localStorage.getItem(KEY_STORAGE) || "";
  const initial = idInAddress();
  idInput.value = initial;
  if (initial && keyInput.value) show(initial);
  else if (initial) setStatus("idle", "Enter an API key and press Show.");
})();
