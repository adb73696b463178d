// Opens /explore in headless Chromium, types the API key once, then shows each
// id in turn (the key must survive in localStorage) and prints what was
// drawn, plus every request that tried to leave the machine (there must be
// none) and every script error.
// usage: node explore-check.mjs <base url> <api key> <id | click:<node id>>...
// (click:<node id> clicks that node of the current drawing instead of loading a page;
// tab:<id> opens the id in a new tab of the same browser, where no key is typed)
// EXPLORE_SCREENSHOT=<dir> also saves a picture of each view there.
import { openOfflinePage } from "./offline-page.mjs";

const [base, key, ...ids] = process.argv.slice(2);
const opened = await openOfflinePage(base);
const { browser, outside, errors } = opened;
let page = opened.page;
const views = [];
try {
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  for (const [index, id] of ids.entries()) {
    if (id.startsWith("tab:")) {
      page = await page.context().newPage();
      page.on("console", (message) => {
        if (message.type() === "error") errors.push(message.text());
      });
      await page.goto(`${base}/explore?id=${encodeURIComponent(id.slice("tab:".length))}`, {
        waitUntil: "load",
      });
    } else if (id.startsWith("click:")) {
      await page.evaluate(() => document.getElementById("status").removeAttribute("data-state"));
      await page.click(`.node[data-node-id="${id.slice("click:".length)}"]`);
    } else {
      await page.goto(`${base}/explore?id=${encodeURIComponent(id)}`, { waitUntil: "load" });
    }
    if (index === 0) {
      await page.fill("#key", key);
      await page.click("#show");
    }
    await page.waitForSelector('#status[data-state="done"], #status[data-state="error"]', {
      timeout: 20000,
    });
    if (process.env.EXPLORE_SCREENSHOT) {
      await page.screenshot({ path: `${process.env.EXPLORE_SCREENSHOT}/explore-${index}.png`, fullPage: true });
    }
    views.push(
      await page.evaluate(() => ({
        state: document.getElementById("status").dataset.state,
        status: document.getElementById("status").textContent,
        nodeIds: [...document.querySelectorAll(".node")].map((n) => n.getAttribute("data-node-id")),
        titles: [...document.querySelectorAll(".node > title")].map((t) => t.textContent),
        edgeTypes: [...document.querySelectorAll(".edge")].map((e) => e.getAttribute("data-edge-type")),
        legend: [...document.querySelectorAll("#legend li")].map((li) => li.textContent),
        // memory text is drawn as text: markup in it must never become elements
        markup: document.querySelectorAll("img, b, script:not([src])").length,
        url: window.location.href,
        keyFilled: document.getElementById("key").value !== "",
      })),
    );
  }
  console.log(JSON.stringify({ ok: true, views, outside, errors }));
} catch (error) {
  console.log(JSON.stringify({ ok: false, error: String(error), views, outside, errors }));
} finally {
  await browser.close();
}
