import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

// The box every table sits in: it scrolls sideways on its own (the page never does), and when the
// table is wider than the box (a phone) a line under it says so, as a shadow at the edge is easy
// to miss. Named, it is a focusable region, so it can be scrolled by keyboard.

export function TableWrap(props: { label?: string; children: ComponentChildren }) {
  const box = useRef<HTMLDivElement>(null);
  const [overflows, setOverflows] = useState(false);
  useEffect(() => {
    const el = box.current;
    if (!el) return undefined;
    const measure = () => setOverflows(el.scrollWidth > el.clientWidth + 1);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    if (el.firstElementChild) observer.observe(el.firstElementChild);
    return () => observer.disconnect();
  }, []);
  return (
    <>
      <div ref={box} class={overflows ? 'table-wrap overflows' : 'table-wrap'} tabIndex={props.label ? 0 : undefined}
        role={props.label ? 'region' : undefined} aria-label={props.label}>
        {props.children}
      </div>
      {overflows && <p class="scroll-hint small" aria-hidden="true">Scroll the table sideways for more columns →</p>}
    </>
  );
}
