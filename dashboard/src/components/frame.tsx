import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { Link } from './link';

// The signed-in layout the merchant dashboard and the operator console share: a skip link, the
// header (a menu button when narrow, then the frame's own items), what shows under the header,
// and the navigation (a side bar when wide, opened by the menu button when narrow) beside main.

export function Frame(props: {
  class: string;
  header: ComponentChildren;
  /** Between the header and the page: dialogs and banners. */
  notes?: ComponentChildren;
  navLabel: string;
  nav: ComponentChildren;
  children: ComponentChildren;
}) {
  const [menuOpen, setMenuOpen] = useState(false);
  return (
    <div class={props.class}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <button type="button" class="menu-button secondary" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
        {props.header}
      </header>
      {props.notes}
      <div class="body">
        <nav id="nav" class={menuOpen ? 'open' : undefined} aria-label={props.navLabel} onClick={() => setMenuOpen(false)}>
          {props.nav}
        </nav>
        <main id="main" tabIndex={-1}>
          {props.children}
        </main>
      </div>
    </div>
  );
}

/** A list of the navigation's links, the current page's marked as such. */
export function NavList(props: { items: { to: string; text: string }[]; isCurrent(to: string): boolean }) {
  return (
    <ul>
      {props.items.map((i) => (
        <li key={i.to}>
          <Link to={i.to} current={props.isCurrent(i.to)}>
            {i.text}
          </Link>
        </li>
      ))}
    </ul>
  );
}
