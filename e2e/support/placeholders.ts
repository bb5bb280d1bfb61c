import type { Page } from '@playwright/test';

/**
 * The visible one-line fields of the page whose placeholder does not fit them (issue 60: two were cut
 * off), each as "its placeholder: needs N px, has M px"; measured in the field's own font.
 */
export function cutPlaceholders(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const ctx = document.createElement('canvas').getContext('2d')!;
    return [...document.querySelectorAll<HTMLInputElement>('input[placeholder]')]
      .filter((el) => el.placeholder && el.getClientRects().length > 0)
      .flatMap((el) => {
        const style = getComputedStyle(el);
        ctx.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const needs = ctx.measureText(el.placeholder).width;
        const has = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        return needs > has + 0.5 ? [`${el.placeholder}: needs ${needs.toFixed(0)} px, has ${has.toFixed(0)} px`] : [];
      });
  });
}
