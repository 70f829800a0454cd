import type { Page } from 'playwright-core';

/**
 * Everything on a page that does not fit its width, each named so that a
 * failure says where to look:
 * - the document itself, wider than the viewport (the page scrolls sideways);
 * - any element whose box reaches past the viewport's right edge;
 * - any element reaching into the right padding of the card (`section`) it
 *   sits in, or past it;
 * - any element that clips or scrolls its own content sideways.
 * Boxes of 1 × 1 px or less are skipped: that is how text meant for screen
 * readers only is hidden on purpose (`.visually-hidden`).
 *
 * Runs in the page as a string: the tests' TypeScript knows no DOM.
 */
export async function horizontalOverflow(page: Page): Promise<string[]> {
  return (await page.evaluate(`(() => {
    // Sub-pixel layout rounds both ways; half a pixel is not a visible overflow.
    const SLACK = 0.5;
    const root = document.documentElement;
    const viewportRight = root.clientWidth;
    const name = (element) => {
      const id = element.id ? '#' + element.id : '';
      const classes = [...element.classList].map((c) => '.' + c).join('');
      const role = element.getAttribute('role') ? '[role=' + element.getAttribute('role') + ']' : '';
      const text = (element.textContent ?? '').trim().replace(/\\s+/g, ' ').slice(0, 40);
      return element.localName + id + classes + role + (text ? ' "' + text + '"' : '');
    };
    const offenders = [];
    if (root.scrollWidth > root.clientWidth) {
      offenders.push('the document: scrollWidth ' + root.scrollWidth + ' > clientWidth ' + root.clientWidth);
    }
    for (const element of document.body.querySelectorAll('*')) {
      const box = element.getBoundingClientRect();
      if (box.width <= 1 && box.height <= 1) continue;
      if (box.right > viewportRight + SLACK) {
        offenders.push(name(element) + ': right edge ' + Math.round(box.right) + ' past the viewport ' + viewportRight);
      }
      const card = element.parentElement?.closest('section');
      if (card) {
        const style = getComputedStyle(card);
        const inside = card.getBoundingClientRect().right - parseFloat(style.borderRightWidth) - parseFloat(style.paddingRight);
        if (box.right > inside + SLACK) {
          offenders.push(name(element) + ': right edge ' + Math.round(box.right) + ' past the inside of its card ' + Math.round(inside));
        }
      }
      const overflowX = getComputedStyle(element).overflowX;
      if (overflowX !== 'visible' && element.scrollWidth > element.clientWidth) {
        offenders.push(name(element) + ': overflow-x ' + overflowX + ' hides ' + (element.scrollWidth - element.clientWidth) + ' px of its content');
      }
    }
    return offenders;
  })()`)) as string[];
}
