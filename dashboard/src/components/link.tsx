import type { ComponentChildren } from 'preact';
import { href, navigate } from '../router';

/** An ordinary link (keyboard, middle-click, copy address all work) that navigates in place. */
export function Link(props: { to: string; children: ComponentChildren; class?: string; current?: boolean }) {
  const onClick = (e: MouseEvent) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(props.to);
  };
  return (
    <a href={href(props.to)} onClick={onClick} class={props.class} aria-current={props.current ? 'page' : undefined}>
      {props.children}
    </a>
  );
}
