// Opens /explore in headless Chromium, types the API key once, then takes each
// step in turn and prints what the page shows after it: the drawn nodes and
// edges, every node's label and node box as rendered (to check that no two
// labels overlap and none is cut off), the side panel, the legend, plus every
// request that tried to leave the machine (there must be none) and every
// script error or CSP violation.
// usage: node explore-check.mjs <base url> <api key> <step>...
// steps: <id>          load /explore?id=<id> (the first step also types the key and presses Show)
//        tab:<id>      open /explore?id=<id> in a new tab of the same browser (no key typed)
//        click:<id>    click that node where it is drawn on the canvas
//        expand        press "Expand neighbours" in the side panel
//        reroot        press "Explore from here" in the side panel
//        forget        press "Forget key"
//        zoom-in, fit  press "+" or "Fit"
// EXPLORE_SCREENSHOT=<dir> also saves a picture of each view there (explore-<step>.png).
import { openOfflinePage } from "./offline-page.mjs";

const [base, key, ...steps] = process.argv.slice(2);
const opened = await openOfflinePage(base);
const { browser, outside, errors } = opened;
let page = opened.page;
const views = [];
// idle: the page has no key (after "Forget key", or a tab opened without one)
const SETTLED = ["done", "error", "idle"].map((s) => `#status[data-state="${s}"]`).join(", ");

function watch(target) {
  target.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
}

// Reads what the page shows; the label boxes come from cytoscape's rendered geometry.
function read() {
  const cy = window.hippographExplore.cy;
  const text = (id) => document.getElementById(id).textContent;
  const box = (b) => ({ x1: b.x1, y1: b.y1, x2: b.x2, y2: b.y2 });
  const nodes = cy ? cy.nodes().toArray() : [];
  const panel = document.getElementById("details");
  const properties = {};
  for (const dt of document.querySelectorAll("#details-properties dt")) {
    properties[dt.textContent] = dt.nextElementSibling.textContent;
  }
  return {
    state: document.getElementById("status").dataset.state,
    status: text("status"),
    nodeIds: nodes.map((n) => n.id()),
    listedIds: [...document.querySelectorAll("#nodes button")].map((b) => b.dataset.nodeId),
    edges: cy ? cy.edges().map((e) => `${e.data("source")} ${e.data("type")} ${e.data("target")}`) : [],
    edgeTypes: cy ? cy.edges().map((e) => e.data("type")) : [],
    labels: nodes.map((n) => ({
      id: n.id(),
      text: n.data("label"),
      label: box(n.renderedBoundingBox({ includeNodes: false, includeEdges: false, includeOverlays: false })),
      node: box(n.renderedBoundingBox({ includeLabels: false, includeOverlays: false })),
    })),
    viewport: cy ? { width: cy.width(), height: cy.height(), zoom: cy.zoom() } : null,
    panel: panel.hidden
      ? null
      : {
          title: text("details-title"),
          id: text("details-id"),
          text: text("details-text"),
          original: document.getElementById("details-original").hidden ? null : text("details-original-text"),
          properties,
        },
    legend: [...document.querySelectorAll("#legend li")].map((li) => li.textContent),
    // memory text is drawn as text: markup in it must never become elements
    markup: document.querySelectorAll("img, b, script:not([src])").length,
    url: window.location.href,
    keyFilled: document.getElementById("key").value !== "",
    keyStored: localStorage.getItem("hippograph.explore.apiKey") !== null,
  };
}

try {
  await page.context().addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  await page.setViewportSize({ width: 1600, height: 1000 });
  watch(page);
  for (const [index, step] of steps.entries()) {
    if (step.startsWith("tab:")) {
      page = await page.context().newPage();
      await page.setViewportSize({ width: 1600, height: 1000 });
      watch(page);
      await page.goto(`${base}/explore?id=${encodeURIComponent(step.slice("tab:".length))}`, { waitUntil: "load" });
    } else if (step.startsWith("click:")) {
      const id = step.slice("click:".length);
      const point = await page.evaluate((nodeId) => {
        const cy = window.hippographExplore.cy;
        const at = cy.getElementById(nodeId).renderedPosition();
        const frame = cy.container().getBoundingClientRect();
        return { x: frame.left + at.x, y: frame.top + at.y };
      }, id);
      await page.mouse.click(point.x, point.y);
      await page.waitForFunction(
        (nodeId) => !document.getElementById("details").hidden && document.getElementById("details-id").textContent === nodeId,
        id,
        { timeout: 5000 },
      );
    } else if (step === "zoom-in" || step === "fit") {
      await page.click(`#${step}`);
    } else if (step === "expand" || step === "reroot" || step === "forget") {
      await page.evaluate(() => document.getElementById("status").removeAttribute("data-state"));
      await page.click(step === "forget" ? "#forget-key" : `#${step}`);
    } else {
      await page.goto(`${base}/explore?id=${encodeURIComponent(step)}`, { waitUntil: "load" });
    }
    if (index === 0) {
      await page.fill("#key", key);
      await page.click("#show");
    }
    await page.waitForSelector(SETTLED, { timeout: 20000 });
    if (process.env.EXPLORE_SCREENSHOT) {
      await page.screenshot({ path: `${process.env.EXPLORE_SCREENSHOT}/explore-${index}.png`, fullPage: true });
    }
    views.push(await page.evaluate(read));
  }
  console.log(JSON.stringify({ ok: true, views, outside, errors }));
} catch (error) {
  console.log(JSON.stringify({ ok: false, error: String(error), views, outside, errors }));
} finally {
  await browser.close();
}
