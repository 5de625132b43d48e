import { DOMParser, type Element, type Node } from '@xmldom/xmldom';

/**
 * The allow-list SVG check of contract §11.5: the icon registry (ConfigMaps) and Enterprise category icons
 * (§12.3) accept an SVG only when it passes. The text is parsed by a strict XML parser (@xmldom/xmldom, every
 * error fatal), then every node of the tree is checked against allow-lists; nothing is repaired. An SVG with a
 * script, an event handler, an external reference, a `javascript:` URL, a DOCTYPE (entities), a processing
 * instruction, or an element or attribute not on the lists is refused with the first reason found. What passes
 * is served as the parser's own serialisation of the checked tree, so the bytes served are the tree that was
 * checked, not a text another parser might read differently.
 */
type SvgCheck = { ok: true; svg: string } | { ok: false; reason: string };

/** Icons are small: 64 KiB (UTF-8) is far above any icon set's largest, and bounds the parse. */
export const MAX_SVG_BYTES = 64 * 1024;
/** Bounds of the tree itself, so a small but deep or wide text cannot make the check expensive. */
const MAX_DEPTH = 32;
const MAX_ELEMENTS = 4_000;

const SVG_NS = 'http://www.w3.org/2000/svg';
const XLINK_NS = 'http://www.w3.org/1999/xlink';
const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';

/** Drawing, structure, paint servers, clipping and a few filters. No script, style sheets beyond <style> text,
 * no foreignObject, image, a, animation (`set`/`animate` can rewrite an href) or font loading. */
const ELEMENTS = new Set([
  'svg', 'g', 'defs', 'title', 'desc', 'symbol', 'use', 'style',
  'path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon',
  'text', 'tspan',
  'linearGradient', 'radialGradient', 'stop', 'pattern', 'clipPath', 'mask', 'marker',
  'filter', 'feGaussianBlur', 'feOffset', 'feBlend', 'feColorMatrix', 'feFlood', 'feComposite', 'feMerge', 'feMergeNode', 'feDropShadow',
]);

/** Geometry, presentation and structure attributes (no `on*`, no `style` sheets loading anything). */
const ATTRIBUTES = new Set([
  'id', 'class', 'style', 'lang', 'tabindex', 'role', 'focusable',
  'aria-hidden', 'aria-label', 'aria-labelledby', 'aria-describedby',
  'viewBox', 'preserveAspectRatio', 'width', 'height', 'x', 'y', 'x1', 'y1', 'x2', 'y2', 'cx', 'cy', 'r', 'rx', 'ry', 'fx', 'fy', 'fr',
  'd', 'points', 'pathLength', 'transform', 'version', 'baseProfile',
  'fill', 'fill-opacity', 'fill-rule', 'stroke', 'stroke-width', 'stroke-linecap', 'stroke-linejoin', 'stroke-miterlimit',
  'stroke-dasharray', 'stroke-dashoffset', 'stroke-opacity', 'opacity', 'color', 'display', 'visibility', 'overflow',
  'clip-path', 'clip-rule', 'clipPathUnits', 'mask', 'maskUnits', 'maskContentUnits', 'filter', 'filterUnits', 'primitiveUnits',
  'marker-start', 'marker-mid', 'marker-end', 'markerWidth', 'markerHeight', 'markerUnits', 'refX', 'refY', 'orient',
  'gradientUnits', 'gradientTransform', 'spreadMethod', 'offset', 'stop-color', 'stop-opacity',
  'patternUnits', 'patternContentUnits', 'patternTransform',
  'font-family', 'font-size', 'font-weight', 'font-style', 'text-anchor', 'dominant-baseline', 'alignment-baseline',
  'letter-spacing', 'word-spacing', 'text-decoration', 'dx', 'dy', 'rotate', 'textLength', 'lengthAdjust',
  'shape-rendering', 'text-rendering', 'color-interpolation', 'color-interpolation-filters', 'vector-effect', 'paint-order', 'mix-blend-mode',
  'in', 'in2', 'result', 'stdDeviation', 'mode', 'type', 'values', 'operator', 'k1', 'k2', 'k3', 'k4', 'flood-color', 'flood-opacity', 'edgeMode',
  // Only a local `#fragment` (checked below).
  'href',
]);

/** The attribute names that reference another resource: only `#fragment` (a node of this document) passes. */
const REFERENCES = new Set(['href']);

/** Control and invisible characters that a browser drops inside a URL scheme (`java\tscript:`). */
const INVISIBLE = /[\u0000-\u0020\u007f-\u009f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g;

/** Whether CSS text (a <style> element or a `style`/presentation value) loads or runs anything. */
function cssProblem(css: string): string | undefined {
  const text = css.replace(INVISIBLE, '').toLowerCase();
  // A CSS escape (`\75 rl(`) can spell anything below; icons have no use for one.
  if (text.includes('\\')) return 'a CSS escape';
  if (text.includes('@import')) return 'an @import';
  if (text.includes('javascript:') || text.includes('vbscript:')) return 'a script URL';
  if (text.includes('expression(') || text.includes('-moz-binding') || text.includes('behavior:')) return 'a scripted CSS property';
  for (const m of text.matchAll(/url\(\s*(['"]?)([^'")]*)/g)) {
    if (!m[2]!.trim().startsWith('#')) return `an external reference (url(${m[2]!.slice(0, 40)}))`;
  }
  if (/\bimage-set\(|\bsrc\(/.test(text)) return 'an external reference';
  return undefined;
}

const describe = (el: Element) => (el.prefix ? `${el.prefix}:${el.localName}` : el.localName);

/**
 * Checks `text` as an SVG icon (see {@link SvgCheck}). Pure and synchronous; never throws for any input.
 */
export function sanitizeSvg(text: string): SvgCheck {
  if (typeof text !== 'string' || text.length === 0) return { ok: false, reason: 'the SVG is empty' };
  if (Buffer.byteLength(text, 'utf8') > MAX_SVG_BYTES) return { ok: false, reason: `the SVG is larger than ${MAX_SVG_BYTES / 1024} KiB` };
  // Refused before parsing, whatever the parser would make of them: entity declarations live only in a DTD.
  if (/<!(DOCTYPE|ENTITY)/i.test(text)) return { ok: false, reason: 'a DOCTYPE (entity declarations are not allowed)' };
  let doc: ReturnType<DOMParser['parseFromString']>;
  let complaint: string | undefined;
  try {
    // Every parser complaint is fatal: a document a lenient parser would "fix" is one it may read differently.
    doc = new DOMParser({
      onError: (level, message) => {
        if (level === 'warning') return;
        complaint ??= message;
        throw new Error(message);
      },
    }).parseFromString(text, 'image/svg+xml');
  } catch (err) {
    const message = complaint ?? (err instanceof Error ? err.message : 'parse error');
    return { ok: false, reason: `not well-formed XML: ${message.split('\n')[0]!.slice(0, 160)}` };
  }

  let elements = 0;
  const fail = (reason: string): SvgCheck => ({ ok: false, reason });

  const checkAttributes = (el: Element): string | undefined => {
    for (let i = 0; i < el.attributes.length; i++) {
      const attr = el.attributes.item(i)!;
      const name = attr.localName ?? attr.name;
      const ns = attr.namespaceURI;
      const value = attr.value;
      if (ns === XMLNS_NS) {
        // Namespace declarations: SVG's own and XLink's only (a foreign namespace brings foreign elements).
        if (value !== SVG_NS && value !== XLINK_NS) return `an unexpected namespace declaration (${attr.name}="${value.slice(0, 60)}")`;
        continue;
      }
      if (/^on/i.test(name)) return `an event-handler attribute (${attr.name})`;
      const bare = value.replace(INVISIBLE, '').toLowerCase();
      if (bare.includes('javascript:') || bare.includes('vbscript:') || bare.startsWith('data:')) return `a script or data URL in ${attr.name}`;
      if (ns === XML_NS) {
        if (name !== 'space' && name !== 'lang') return `an unexpected attribute (${attr.name})`;
        continue;
      }
      if (ns === XLINK_NS) {
        if (name !== 'href' && name !== 'title') return `an unexpected attribute (${attr.name})`;
      } else if (ns !== null && ns !== SVG_NS) {
        return `an attribute of a foreign namespace (${attr.name})`;
      } else if (!ATTRIBUTES.has(name)) {
        return `an attribute that is not allowed (${attr.name} on <${describe(el)}>)`;
      }
      if (REFERENCES.has(name) && !/^#[A-Za-z_][\w.:-]*$/.test(value)) return `an external reference (${attr.name}="${value.slice(0, 60)}")`;
      if (value.toLowerCase().includes('url(') || name === 'style') {
        const problem = cssProblem(value);
        if (problem) return `${problem} in ${attr.name}`;
      }
    }
    return undefined;
  };

  const walk = (node: Node, depth: number): SvgCheck | undefined => {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      switch (child.nodeType) {
        case 1: {
          const el = child as Element;
          if (++elements > MAX_ELEMENTS) return fail(`more than ${MAX_ELEMENTS} elements`);
          if (depth >= MAX_DEPTH) return fail(`elements nested deeper than ${MAX_DEPTH}`);
          if (el.namespaceURI !== SVG_NS && el.namespaceURI !== null) return fail(`an element of a foreign namespace (<${describe(el)}>)`);
          if (!ELEMENTS.has(el.localName!)) {
            return fail(el.localName?.toLowerCase() === 'script' ? 'a <script> element' : `an element that is not allowed (<${describe(el)}>)`);
          }
          if (depth === 0 && el.localName !== 'svg') return fail(`the root element is <${describe(el)}>, not <svg>`);
          const problem = checkAttributes(el);
          if (problem) return fail(problem);
          if (el.localName === 'style') {
            for (let t = el.firstChild; t; t = t.nextSibling) {
              if (t.nodeType !== 3 && t.nodeType !== 4) return fail('markup inside <style>');
              const css = cssProblem(t.nodeValue ?? '');
              if (css) return fail(`${css} in <style>`);
            }
            break;
          }
          const inner = walk(el, depth + 1);
          if (inner) return inner;
          break;
        }
        case 3: // text
        case 8: // comment
          break;
        case 4: // CDATA: text, checked like any other
          break;
        case 7: {
          // Only the XML declaration, before the root (an `xml-stylesheet` loads a style sheet).
          if (depth === 0 && child.nodeName === 'xml') break;
          return fail(`a processing instruction (<?${child.nodeName}?>)`);
        }
        case 10:
          return fail('a DOCTYPE (entity declarations are not allowed)');
        default:
          return fail(`an unexpected node (type ${child.nodeType})`);
      }
    }
    return undefined;
  };

  const problem = walk(doc, 0);
  if (problem) return problem;
  if (!doc.documentElement || doc.documentElement.localName !== 'svg') return fail('there is no <svg> root element');
  return { ok: true, svg: doc.documentElement.toString() };
}
