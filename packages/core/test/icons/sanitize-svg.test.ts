import { describe, expect, it } from 'vitest';
import { MAX_SVG_BYTES, sanitizeSvg } from '../../src/icons/sanitize-svg.js';

const svg = (inner: string, attrs = '') => `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"${attrs}>${inner}</svg>`;
const XLINK = 'xmlns:xlink="http://www.w3.org/1999/xlink"';

/** Each hostile SVG, what it tries, and a word the refusal must name. */
const hostile: Array<[string, string, RegExp]> = [
  ['a <script> element', svg('<script>alert(1)</script>'), /script/],
  ['a namespaced script (svg:script)', '<svg:svg xmlns:svg="http://www.w3.org/2000/svg"><svg:script>alert(1)</svg:script></svg:svg>', /script/],
  ['an XHTML script inside', svg('<html:script xmlns:html="http://www.w3.org/1999/xhtml">alert(1)</html:script>'), /namespace/],
  ['an onload handler on the root', svg('<path d="M0 0"/>', ' onload="alert(1)"'), /event-handler/],
  ['an onclick handler in upper case', svg('<rect width="1" height="1" ONCLICK="alert(1)"/>'), /event-handler/],
  ['an onmouseover on a child', svg('<circle r="3" onmouseover="alert(1)"/>'), /event-handler/],
  ['an external href on <use>', svg('<use href="https://evil.example/x.svg#a"/>'), /external reference/],
  ['an external xlink:href on <use>', svg('<use xlink:href="//evil.example/x.svg#a"/>', ` ${XLINK}`), /external reference/],
  ['a javascript: href', svg('<use href="javascript:alert(1)"/>'), /script/],
  ['a javascript: URL split by a tab', svg('<use href="java&#9;script:alert(1)"/>'), /script/],
  ['a data: URL', svg('<use href="data:image/svg+xml;base64,PHN2Zy8+"/>'), /data URL/],
  ['a javascript: URL spelt with character references', svg('<use href="&#106;avascript&#58;alert(1)"/>'), /script/],
  ['a javascript: URL in mixed case', svg('<use xlink:href="JaVaScRiPt:alert(1)"/>', ` ${XLINK}`), /script/],
  ['an external url() spelt with character references', svg('<path d="M0 0" style="fill:url(&#104;ttps://evil.example/g)"/>'), /external reference/],
  ['an event handler in another namespace prefix', svg('<path d="M0 0" xlink:onload="alert(1)"/>', ` ${XLINK}`), /event-handler/],
  ['a link element <a>', svg('<a href="https://evil.example"><path d="M0 0"/></a>'), /not allowed \(<a>\)/],
  ['an <image> of an external file', svg('<image href="https://evil.example/track.png"/>'), /not allowed/],
  ['foreignObject with HTML', svg('<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>'), /foreignObject/],
  ['an animation that rewrites an href', svg('<set attributeName="href" to="javascript:alert(1)"/>'), /not allowed \(<set>\)/],
  ['<animate> of an href', svg('<animate attributeName="href" values="javascript:alert(1)"/>'), /not allowed/],
  ['an iframe', svg('<iframe src="https://evil.example"/>'), /not allowed/],
  ['an external url() in fill', svg('<path d="M0 0" fill="url(https://evil.example/p.svg#g)"/>'), /external reference/],
  ['an external url() in a style attribute', svg('<path d="M0 0" style="fill:url(//evil.example/g)"/>'), /external reference/],
  ['@import in <style>', svg('<style>@import "https://evil.example/x.css";</style>'), /@import/],
  ['url() in <style>', svg('<style>path{background:url(https://evil.example/beacon)}</style>'), /external reference/],
  ['a CSS escape hiding url(', svg('<style>path{background:\\75 rl(https://evil.example)}</style>'), /CSS escape/],
  ['a DOCTYPE with an internal entity (billion laughs)', `<!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]>${svg('<text>&b;</text>')}`, /DOCTYPE/],
  ['a DOCTYPE with an external entity (XXE)', `<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>${svg('<text>&x;</text>')}`, /DOCTYPE/],
  ['a bare DOCTYPE', `<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">${svg('<path d="M0 0"/>')}`, /DOCTYPE/],
  ['an HTML entity (undefined in XML)', svg('<text>&nbsp;</text>'), /well-formed/],
  ['an xml-stylesheet processing instruction', `<?xml-stylesheet href="https://evil.example/x.css"?>${svg('<path d="M0 0"/>')}`, /processing instruction/],
  ['a foreign namespace declaration', svg('<path d="M0 0"/>', ' xmlns:ev="http://www.w3.org/2001/xml-events"'), /namespace declaration/],
  ['an unknown attribute', svg('<path d="M0 0" formaction="x"/>'), /not allowed \(formaction/],
  ['not XML at all', '<svg><g></svg>', /well-formed/],
  ['text instead of SVG', 'hello', /well-formed/],
  ['an HTML root', '<html><body/></html>', /not allowed|root/],
  ['an empty string', '', /empty/],
  ['more than 64 KiB', svg(`<path d="${'M0 0 '.repeat(Math.ceil(MAX_SVG_BYTES / 5))}"/>`), /larger than 64 KiB/],
  ['nesting deeper than the bound', svg(`${'<g>'.repeat(40)}${'</g>'.repeat(40)}`), /deeper/],
];

describe('the allow-list SVG check (§11.5, §12.3)', () => {
  it.each(hostile)('refuses %s', (_what, text, reason) => {
    const result = sanitizeSvg(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });

  it('accepts an ordinary icon, with gradients, local references, classes and a harmless <style>', () => {
    const icon = svg(
      '<title>Database</title><defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/></linearGradient></defs>' +
        '<style>.a{fill:url(#g);stroke:currentColor}</style>' +
        '<ellipse class="a" cx="12" cy="5" rx="9" ry="3"/><path d="M3 5v14c0 1.7 4 3 9 3s9-1.3 9-3V5" fill="none" stroke-width="2"/>' +
        `<use xlink:href="#g"/><use href="#g"/>`,
      ` ${XLINK} fill="none" stroke="currentColor"`,
    );
    const result = sanitizeSvg(`<?xml version="1.0" encoding="UTF-8"?>\n<!-- generic -->\n${icon}`);
    expect(result, JSON.stringify(result)).toMatchObject({ ok: true });
    if (result.ok) {
      expect(result.svg.startsWith('<svg')).toBe(true);
      expect(result.svg).toContain('url(#g)');
    }
  });

  it('serves the checked tree: what passes is re-serialised, not the text as sent', () => {
    const result = sanitizeSvg(svg('<path d="M0 0"></path>'));
    expect(result).toEqual({ ok: true, svg: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M0 0"/></svg>' });
  });
});
