// Opens the promptfoo web viewer in headless Chromium and checks that every clip cell plays:
// a <video> element whose source loads (readyState >= 2), with a duration and a frame size.
// Usage (see scripts/check_viewer_playback.sh): node check_viewer_playback.cjs <viewer-url> <screenshot.png>
const { chromium } = require("playwright-core");

async function main() {
  const [url, screenshot] = process.argv.slice(2);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--autoplay-policy=no-user-gesture-required"],
  });
  const page = await browser.newPage({ viewport: { width: 1600, height: 1200 } });
  await page.goto(url, { waitUntil: "networkidle", timeout: 60000 });
  await page.waitForSelector("video", { timeout: 60000 });
  const results = await page.$$eval("video", async (videos) => {
    const wait = (v) => new Promise((resolve) => {
      if (v.readyState >= 2) return resolve();
      v.addEventListener("loadeddata", () => resolve(), { once: true });
      v.addEventListener("error", () => resolve(), { once: true });
      v.preload = "auto"; v.load();
      setTimeout(resolve, 15000);
    });
    const out = [];
    for (const v of videos) {
      await wait(v);
      let played = false;
      try { v.muted = true; await v.play(); played = !v.paused; v.pause(); } catch (e) { played = false; }
      out.push({ src: (v.currentSrc || v.src || "").slice(0, 80), readyState: v.readyState,
                 duration: v.duration, width: v.videoWidth, height: v.videoHeight, played,
                 error: v.error ? v.error.code : null });
    }
    return out;
  });
  await page.screenshot({ path: screenshot, fullPage: false });
  await browser.close();
  console.log(JSON.stringify(results, null, 1));
  const ok = results.filter((r) => r.readyState >= 2 && r.duration > 0 && r.width > 0 && r.played);
  console.log(`videos: ${results.length}, playing: ${ok.length}`);
  process.exit(results.length > 0 && ok.length === results.length ? 0 : 1);
}

main().catch((e) => { console.error(e); process.exit(2); });
