import type { Page } from "playwright-core";

// Browser-side checks, written as source text: they run in the page, and this project is type-checked
// without the DOM library (and tsx's name-keeping helpers do not exist in the page).

/** Visible inputs, selects and buttons without an accessible name (label, aria-label or text). */
const UNLABELLED = `[...document.querySelectorAll("input, select, textarea, button")]
  .filter((el) => el.getClientRects().length > 0)
  .filter((el) =>
    el instanceof HTMLButtonElement
      ? !el.textContent.trim() && !el.getAttribute("aria-label")
      : !(el.labels && el.labels.length > 0) && !el.getAttribute("aria-label"))
  .map((el) => el.outerHTML.slice(0, 120))`;

/**
 * WCAG 2.x contrast of every visible text against the background it is painted on (the nearest ancestor
 * with an opaque background): what falls below 4.5:1 (3:1 for large text). Disabled controls are exempt,
 * as in WCAG.
 */
const CONTRAST = `(() => {
  const rgb = (c) => (c.match(/[\\d.]+/g) ?? []).map(Number);
  const channel = (v) => { const s = v / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; };
  const lum = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] === 1)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const failures = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || !n.textContent.trim() || el.closest("[disabled], .visually-hidden, noscript")) continue;
    if (el.getClientRects().length === 0) continue;
    const style = getComputedStyle(el);
    const l1 = lum(rgb(style.color));
    const l2 = lum(background(el));
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) failures.push(ratio.toFixed(2) + ' "' + n.textContent.trim().slice(0, 40) + '"');
  }
  return failures;
})()`;

export const unlabelledControls = (page: Page) => page.evaluate<string[]>(UNLABELLED);
export const contrastFailures = (page: Page) => page.evaluate<string[]>(CONTRAST);
