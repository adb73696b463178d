// The /explore page: draws the provenance subgraph of a memory with cytoscape.js
// and its dagre (layered) layout, both vendored under /static/vendor.
//
// Nothing is fetched but /graphql and the page's own queries (explore.graphql).
// Memory text reaches the page in two ways only: as canvas labels (cytoscape
// draws text, it never parses it) and through textContent on elements made
// with createElement, never innerHTML, so a memory can hold any markup
// without it running or becoming elements.
"use strict";

(() => {
  const KEY_STORAGE = "hippograph.explore.apiKey";
  // The queries are GraphQL in explore.graphql beside this file (part of the
  // project's one folder of operations): fetched once, each sent with the
  // fragment it spreads.
  let documents = null;
  async function operation(name) {
    if (documents === null) {
      const response = await fetch("/static/explore.graphql");
      if (!response.ok) {
        throw new Error(`Could not load the page's queries (HTTP ${response.status})`);
      }
      const source = (await response.text()).replace(/#[^\n]*/g, "");
      const starts = [...source.matchAll(/^(query|fragment)\s+(\w+)/gm)];
      documents = {};
      starts.forEach((start, i) => {
        const end = i + 1 < starts.length ? starts[i + 1].index : source.length;
        documents[start[2]] = source.slice(start.index, end).trim();
      });
    }
    return `${documents[name]}\n${documents.Fields}`;
  }
  // One colour per GraphQL type; one per edge type (edge labels show on hover only,
  // so the colour and the legend say the type without labels piling up).
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
  const EDGE_COLOURS = { DERIVED_FROM: "#8c959f", SUMMARIZES: "#8250df", SUPERSEDES: "#bc4c00" };
  const OTHER_EDGE_COLOUR = "#57606a";
  // Labels: the first LABEL_CHARS characters, wrapped to LABEL_WIDTH pixels and
  // measured with the font cytoscape draws them in, so each node is sized to
  // hold its whole label (nothing cut off) and dagre spaces the nodes apart.
  const FONT_SIZE = 12;
  const LINE_HEIGHT = 1.3;
  const FONT_FAMILY = "system-ui, sans-serif";
  const LABEL_WIDTH = 190;
  const LABEL_CHARS = 90;
  const PAD_X = 10;
  const PAD_Y = 8;
  // Fitting a small graph would blow its text up; past this it is centred instead.
  const FIT_MAX_ZOOM = 1.25;

  const form = document.getElementById("explore");
  const idInput = document.getElementById("node-id");
  const keyInput = document.getElementById("key");
  const status = document.getElementById("status");
  const toolbar = document.getElementById("toolbar");
  const legend = document.getElementById("legend");
  const workspace = document.getElementById("workspace");
  const container = document.getElementById("graph");
  const nodeList = document.getElementById("nodes");
  const details = document.getElementById("details");
  const detailsEmpty = document.getElementById("details-empty");
  const measure = document.createElement("canvas").getContext("2d");
  measure.font = `${FONT_SIZE}px ${FONT_FAMILY}`;

  const state = { rootId: null, nodes: new Map(), edges: new Map(), selected: null };
  let cy = null;
  let generation = 0; // answers to superseded requests are dropped

  // For the browser console and the browser check: the live cytoscape instance.
  Object.defineProperty(window, "hippographExplore", {
    value: Object.freeze({
      get cy() {
        return cy;
      },
    }),
  });

  function setStatus(kind, text) {
    status.dataset.state = kind;
    status.textContent = text;
  }

  function element(name, text, className) {
    const made = document.createElement(name);
    if (text !== undefined) made.textContent = text;
    if (className) made.className = className;
    return made;
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

  // Greedy word wrap by measured width; a word wider than a line is cut by characters.
  function wrap(text, width) {
    const lines = [];
    let line = "";
    for (const word of text.split(" ")) {
      const candidate = line ? `${line} ${word}` : word;
      if (measure.measureText(candidate).width <= width) {
        line = candidate;
        continue;
      }
      if (line) lines.push(line);
      line = "";
      for (const char of Array.from(word)) {
        if (measure.measureText(line + char).width > width && line) {
          lines.push(line);
          line = "";
        }
        line += char;
      }
    }
    if (line) lines.push(line);
    return lines;
  }

  function caption(node) {
    const type = isMemory(node) ? node.kind : node.__typename.toUpperCase();
    const who = node.__typename === "Message" ? ` · ${node.speaker}` : "";
    const root = node.id === state.rootId ? " · root" : "";
    // A soft-deleted memory is still on the walk (provenance keeps it): say so.
    return `${type}${who}${root}${node.deletedAt ? " · deleted" : ""}`;
  }

  function nodeElement(node) {
    const body = node.__typename === "Message" ? node.content : fullText(node);
    const lines = [truncate(caption(node), 40), ...wrap(truncate(body, LABEL_CHARS), LABEL_WIDTH)];
    const widest = Math.max(...lines.map((line) => measure.measureText(line).width));
    return {
      group: "nodes",
      data: {
        id: node.id,
        type: node.__typename,
        label: lines.join("\n"),
        w: Math.ceil(widest) + 2 * PAD_X,
        h: Math.ceil(lines.length * FONT_SIZE * LINE_HEIGHT) + 2 * PAD_Y,
        colour: COLOURS[node.__typename] || OTHER_COLOUR,
      },
      classes: node.id === state.rootId ? "root" : "",
    };
  }

  function edgeKey(edge) {
    return `${edge.source} ${edge.type} ${edge.target}`; // a space never occurs in ids
  }

  function edgeElement(edge) {
    return {
      group: "edges",
      data: {
        id: edgeKey(edge),
        source: edge.source,
        target: edge.target,
        type: edge.type,
        colour: EDGE_COLOURS[edge.type] || OTHER_EDGE_COLOUR,
      },
    };
  }

  const STYLE = [
    {
      selector: "node",
      style: {
        shape: "round-rectangle",
        width: "data(w)",
        height: "data(h)",
        "background-color": "data(colour)",
        "border-width": 1,
        "border-color": "#1f2328",
        "border-opacity": 0.35,
        label: "data(label)",
        "font-family": FONT_FAMILY,
        "font-size": FONT_SIZE,
        "line-height": LINE_HEIGHT,
        color: "#1f2328",
        "text-wrap": "wrap",
        // the lines are already wrapped; this only guards against a measuring slip
        "text-max-width": `${LABEL_WIDTH + 2 * PAD_X}px`,
        "text-valign": "center",
        "text-halign": "center",
        "text-justification": "left",
      },
    },
    { selector: "node.root", style: { "border-width": 3, "border-opacity": 1 } },
    { selector: "node.added", style: { "border-style": "dashed", "border-opacity": 0.8 } },
    {
      selector: "node:selected",
      style: { "border-width": 3, "border-color": "#0969da", "border-opacity": 1 },
    },
    {
      selector: "edge",
      style: {
        width: 1.5,
        "curve-style": "bezier",
        "line-color": "data(colour)",
        "target-arrow-color": "data(colour)",
        "target-arrow-shape": "triangle",
        "arrow-scale": 0.9,
      },
    },
    { selector: "edge.faded", style: { opacity: 0.25 } },
    {
      selector: "edge.hover",
      style: {
        width: 3,
        label: "data(type)",
        "font-size": 11,
        "font-family": FONT_FAMILY,
        color: "#1f2328",
        "text-background-color": "#ffffff",
        "text-background-opacity": 1,
        "text-background-padding": 2,
      },
    },
  ];

  function graph() {
    if (cy) return cy;
    if (typeof window.cytoscape !== "function") {
      throw new Error("The graph library is missing: run `make assets` on the server.");
    }
    cy = window.cytoscape({
      container,
      style: STYLE,
      minZoom: 0.1,
      maxZoom: 3,
      boxSelectionEnabled: false,
      autoungrabify: true, // positions come from the layout; dragging pans
    });
    cy.on("tap", "node", (event) => select(event.target.id()));
    cy.on("mouseover", "edge", (event) => event.target.addClass("hover"));
    cy.on("mouseout", "edge", (event) => event.target.removeClass("hover"));
    return cy;
  }

  function relayout() {
    cy.layout({
      name: "dagre",
      rankDir: "LR", // root on the left, messages on the right: wide screens fit more ranks
      nodeSep: 18,
      rankSep: 90,
      edgeSep: 10,
      nodeDimensionsIncludeLabels: true,
      fit: false,
      animate: false,
    }).run();
    fit();
  }

  function fit() {
    cy.fit(undefined, 24);
    if (cy.zoom() > FIT_MAX_ZOOM) {
      cy.zoom(FIT_MAX_ZOOM);
      cy.center();
    }
  }

  async function request(query, variables, key) {
    const headers = { "Content-Type": "application/json", Accept: "application/json" };
    if (key) headers.Authorization = `Bearer ${key}`;
    let response;
    try {
      response = await fetch("/graphql", {
        method: "POST",
        headers,
        body: JSON.stringify({ query, variables }),
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
    return body.data;
  }

  // Adds what is new in these subgraphs to the drawing; returns how many nodes and edges.
  function merge(subgraphs, markAdded) {
    const newNodes = [];
    const newEdges = [];
    for (const subgraph of subgraphs) {
      for (const node of subgraph.nodes) {
        if (!state.nodes.has(node.id)) newNodes.push(node);
        state.nodes.set(node.id, node);
      }
    }
    for (const subgraph of subgraphs) {
      for (const edge of subgraph.edges) {
        const key = edgeKey(edge);
        if (state.edges.has(key) || !state.nodes.has(edge.source) || !state.nodes.has(edge.target)) continue;
        state.edges.set(key, edge);
        newEdges.push(edge);
      }
    }
    const added = cy.add([...newNodes.map(nodeElement), ...newEdges.map(edgeElement)]);
    if (markAdded) added.nodes().addClass("added");
    return { nodes: newNodes.length, edges: newEdges.length };
  }

  function drawLegend() {
    legend.replaceChildren();
    const item = (swatchClass, colour, text) => {
      const li = element("li");
      const swatch = element("span", undefined, swatchClass);
      swatch.style.backgroundColor = colour; // CSSOM, which the CSP allows (no style attribute)
      swatch.setAttribute("aria-hidden", "true");
      li.append(swatch, document.createTextNode(text));
      legend.appendChild(li);
    };
    const nodeTypes = [...new Set([...state.nodes.values()].map((n) => n.__typename))].sort();
    for (const type of nodeTypes) item("swatch", COLOURS[type] || OTHER_COLOUR, type);
    const edgeTypes = [...new Set([...state.edges.values()].map((e) => e.type))].sort();
    for (const type of edgeTypes) item("swatch line", EDGE_COLOURS[type] || OTHER_EDGE_COLOUR, type);
  }

  function drawNodeList() {
    nodeList.replaceChildren();
    for (const node of state.nodes.values()) {
      const button = element("button", `${node.__typename}: ${truncate(fullText(node), 60)}`);
      button.type = "button";
      button.dataset.nodeId = node.id;
      button.addEventListener("click", () => {
        select(node.id);
        cy.animate({ center: { eles: cy.getElementById(node.id) } }, { duration: 200 });
      });
      const li = element("li");
      li.appendChild(button);
      nodeList.appendChild(li);
    }
    document.querySelector("#node-list summary").textContent = `All nodes (${state.nodes.size})`;
  }

  function formatTime(value) {
    return value ? value.replace("T", " ").replace(/\.\d+/, "").replace(/\+00:00$|Z$/, " UTC") : "—";
  }

  function properties(node) {
    if (isMemory(node)) {
      const rows = [
        ["Kind", node.kind],
        ["Level", node.level],
        ["Category", node.category],
        ["Importance", Number(node.importance).toFixed(2)],
        ["Valid from", formatTime(node.validFrom)],
        ["Valid to", node.validTo ? formatTime(node.validTo) : node.deletedAt ? "—" : "— (still valid)"],
        ["Created", formatTime(node.createdAt)],
        ["Last accessed", formatTime(node.lastAccessedAt)],
        ["Accesses", String(node.accessCount)],
        ["Source", node.source],
        ["Verified", node.verified ? "yes" : "no"],
        ["Consolidated", node.consolidated ? "yes (a reflection summarises it)" : "no"],
      ];
      if (node.deletedAt) rows.unshift(["Deleted", formatTime(node.deletedAt)]);
      if (node.topic) rows.push(["Topic", node.topic]);
      if (node.domain) rows.push(["Domain", node.domain]);
      for (const change of node.levelHistory || []) {
        rows.push(["Level change", `${change.fromLevel} → ${change.toLevel} at ${formatTime(change.at)}`]);
      }
      return rows;
    }
    if (node.__typename === "MemUnit") {
      return [
        ["Subject", node.subject],
        ["Narrative", node.narrative],
        ["Participants", node.participants.join(", ")],
        ["Keywords", node.keywords.join(", ")],
        ["Time", formatTime(node.ts)],
        ["Source type", node.sourceType],
        ["Session", node.sessionId],
      ];
    }
    if (node.__typename === "Message") {
      return [
        ["Speaker", node.speaker],
        ["Role", node.role],
        ["Time", formatTime(node.ts)],
        ["Position", String(node.seq)],
        ["Session", node.sessionId],
      ];
    }
    return [];
  }

  function select(id) {
    const node = state.nodes.get(id);
    if (!node) return;
    state.selected = id;
    cy.nodes().unselect();
    const drawn = cy.getElementById(id);
    drawn.select();
    cy.edges().addClass("faded");
    drawn.connectedEdges().removeClass("faded");
    document.getElementById("details-title").textContent =
      id === state.rootId ? `${node.__typename} (root)` : node.__typename;
    document.getElementById("details-id").textContent = id;
    document.getElementById("details-text").textContent =
      node.__typename === "Message" ? node.content : fullText(node);
    const original = document.getElementById("details-original");
    original.hidden = !(isMemory(node) && node.originalContent);
    document.getElementById("details-original-text").textContent = node.originalContent || "";
    const list = document.getElementById("details-properties");
    list.replaceChildren();
    for (const [name, value] of properties(node)) {
      list.append(element("dt", name), element("dd", value || "—"));
    }
    document.getElementById("reroot").disabled = id === state.rootId;
    details.hidden = false;
    detailsEmpty.hidden = true;
  }

  function clearDrawing() {
    state.nodes.clear();
    state.edges.clear();
    state.selected = null;
    if (cy) cy.elements().remove();
    details.hidden = true;
    detailsEmpty.hidden = false;
    legend.replaceChildren();
    nodeList.replaceChildren();
  }

  function hideDrawing() {
    clearDrawing();
    toolbar.hidden = true;
    workspace.hidden = true;
  }

  function plural(n, word) {
    return `${n} ${word}${n === 1 ? "" : "s"}`;
  }

  async function show(id) {
    const mine = ++generation;
    const key = keyInput.value.trim();
    if (!key) {
      hideDrawing();
      setStatus("error", "Enter an API key: the API answers only with one.");
      return;
    }
    setStatus("loading", `Loading ${id}…`);
    try {
      const { provenance } = await request(await operation("Explore"), { id }, key);
      if (mine !== generation) return;
      if (!provenance) {
        hideDrawing();
        setStatus("error", `${id}: not found or not yours.`);
        return;
      }
      // shown before drawing: cytoscape sizes itself from its container
      toolbar.hidden = false;
      workspace.hidden = false;
      graph();
      clearDrawing();
      state.rootId = provenance.root.id;
      merge([provenance], false);
      relayout();
      drawLegend();
      drawNodeList();
      setStatus("done", `${plural(state.nodes.size, "node")}, ${plural(state.edges.size, "edge")}.`);
    } catch (error) {
      if (mine !== generation) return;
      hideDrawing();
      setStatus("error", error.message);
    }
  }

  async function expand(id) {
    const mine = generation; // a new drawing meanwhile makes this answer stale
    setStatus("loading", `Expanding ${id}…`);
    try {
      const { down, up } = await request(await operation("Expand"), { id }, keyInput.value.trim());
      if (mine !== generation) return;
      if (!down || !up) {
        setStatus("error", `${id}: not found or not yours.`);
        return;
      }
      const added = merge([down, up], true);
      relayout();
      drawLegend();
      drawNodeList();
      select(id);
      setStatus(
        "done",
        `${plural(state.nodes.size, "node")}, ${plural(state.edges.size, "edge")} ` +
          `(expanding ${id} added ${plural(added.nodes, "node")}, ${plural(added.edges, "edge")}).`,
      );
    } catch (error) {
      if (mine !== generation) return;
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

  document.getElementById("forget-key").addEventListener("click", () => {
    localStorage.removeItem(KEY_STORAGE);
    keyInput.value = "";
    // What the key showed goes with it: a load still on its way is dropped.
    generation++;
    hideDrawing();
    setStatus("idle", "The key is forgotten: no tab of this site has it any more.");
  });

  // Another tab saved or forgot the key: this one follows.
  window.addEventListener("storage", (event) => {
    if (event.key === KEY_STORAGE || event.key === null) {
      keyInput.value = localStorage.getItem(KEY_STORAGE) || "";
    }
  });

  document.getElementById("fit").addEventListener("click", () => cy && fit());
  const zoomBy = (factor) => {
    if (!cy) return;
    const centre = { x: container.clientWidth / 2, y: container.clientHeight / 2 };
    cy.zoom({ level: cy.zoom() * factor, renderedPosition: centre });
  };
  document.getElementById("zoom-in").addEventListener("click", () => zoomBy(1.25));
  document.getElementById("zoom-out").addEventListener("click", () => zoomBy(0.8));
  document.getElementById("expand").addEventListener("click", () => {
    if (state.selected) expand(state.selected);
  });
  document.getElementById("reroot").addEventListener("click", () => {
    if (state.selected) go(state.selected);
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
