// axe-core in a page under test: injected through the DevTools protocol (the app's strict
// Content-Security-Policy allows no injected <script>), run over the whole document, and its
// violations told in a form a failing assertion can print.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  /** The elements at fault, as CSS selectors, with axe's summary of what is wrong. */
  nodes: string[];
}

/** Every axe-core violation on the page as it is now, of any impact. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<AxeRun> } })
      .axe;
    // WCAG 2.2's target size too, which axe leaves out by default: stacked links must be easy to hit.
    const result = await axe.run(document, {
      resultTypes: ['violations'],
      rules: { 'target-size': { enabled: true } },
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary}`),
    }));
  });
}

interface AxeRun {
  violations: {
    id: string;
    impact: string | null;
    help: string;
    nodes: { target: string[]; failureSummary: string }[];
  }[];
}

/**
 * The form fields whose outline is below 3:1 against what is behind them (WCAG 1.4.11, which
 * axe-core does not check), each with its ratio.
 */
export async function faintFieldBorders(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const rgb = (color: string) => (color.match(/[\d.]+/g) ?? []).map(Number);
    const luminance = ([r = 0, g = 0, b = 0]: number[]) => {
      const channel = (c: number) => {
        const s = c / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    };
    const behind = (element: Element): number[] => {
      for (let e: Element | null = element.parentElement; e; e = e.parentElement) {
        const [r, g, b, a = 1] = rgb(getComputedStyle(e).backgroundColor);
        if (a > 0) return [r ?? 0, g ?? 0, b ?? 0];
      }
      return [255, 255, 255];
    };
    const faint: string[] = [];
    for (const field of document.querySelectorAll(
      'input:not([type=checkbox]):not([type=radio]), select, textarea',
    )) {
      if (!(field instanceof HTMLElement) || field.offsetParent === null) continue;
      const a = luminance(rgb(getComputedStyle(field).borderTopColor));
      const b = luminance(behind(field));
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      if (ratio < 3) faint.push(`${field.tagName.toLowerCase()}#${field.id}: ${ratio.toFixed(2)}:1`);
    }
    return faint;
  });
}

/**
 * Text the window cuts (which axe-core does not check): a field's placeholder or a select's chosen
 * option wider than the field, and text an element clips or ends with an ellipsis. Each as
 * "tag.class: the text".
 */
export async function cutTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const canvas = document.createElement('canvas').getContext('2d');
    const width = (text: string, style: CSSStyleDeclaration) => {
      if (!canvas) return 0;
      canvas.font = style.font;
      return canvas.measureText(text).width;
    };
    const room = (e: HTMLElement, style: CSSStyleDeclaration) =>
      e.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight);
    const name = (e: Element) =>
      `${e.tagName.toLowerCase()}${e.className ? `.${String(e.className).split(' ')[0]}` : ''}`;
    const cut: string[] = [];
    for (const e of document.querySelectorAll<HTMLElement>('input[placeholder], textarea[placeholder]')) {
      if (e.offsetParent === null || (e as HTMLInputElement).value !== '') continue;
      const style = getComputedStyle(e);
      const text = e.getAttribute('placeholder') ?? '';
      if (width(text, style) > room(e, style) + 0.5) cut.push(`${name(e)}: ${text}`);
    }
    for (const e of document.querySelectorAll<HTMLSelectElement>('select')) {
      if (e.offsetParent === null) continue;
      const style = getComputedStyle(e);
      const text = e.selectedOptions[0]?.textContent ?? '';
      // Chromium draws the arrow inside the right padding's box, about 20 px wide.
      if (width(text, style) > room(e, style) - 20 + 0.5) cut.push(`${name(e)}: ${text}`);
    }
    // Each text's own box against the nearest box that clips it (a 1 px one hides text for screen readers only).
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent?.trim();
      const parent = node.parentElement;
      // A field's own text scrolls in it; an SVG's title is not drawn.
      if (!text || !(parent instanceof HTMLElement) || parent.offsetParent === null) continue;
      if (parent instanceof HTMLTextAreaElement) continue;
      let clip: HTMLElement | null = parent;
      while (clip && getComputedStyle(clip).overflowX === 'visible') clip = clip.parentElement;
      if (!clip || clip === document.documentElement || clip === document.body) continue;
      const box = clip.getBoundingClientRect();
      if (box.width <= 1) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      const shown = range.getBoundingClientRect();
      if (shown.right > box.right + 1 || shown.left < box.left - 1)
        cut.push(`${name(parent)}: ${text.slice(0, 80)}`);
    }
    return cut;
  });
}
