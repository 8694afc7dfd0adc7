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
