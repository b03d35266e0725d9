import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { rasterizeSvg } from '../../src/charts/rasterize-svg.js';
import { checkSvgReferences, looksLikeSvg } from '../../src/charts/svg-checks.js';

const bytes = (text: string) => new TextEncoder().encode(text);

test('an SVG is recognised by its content, with or without an XML declaration, comment or doctype', () => {
  assert.equal(looksLikeSvg(bytes('<svg xmlns="http://www.w3.org/2000/svg"/>')), true);
  assert.equal(looksLikeSvg(bytes('<?xml version="1.0"?>\n<!-- made by hand -->\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x">\n<svg>')), true);
  assert.equal(looksLikeSvg(bytes('<html><svg></svg></html>')), false);
  assert.equal(looksLikeSvg(bytes('\x89PNG\r\n')), false);
});

test('references that load anything outside the SVG are refused; internal and data: references pass', () => {
  for (const svg of [
    '<svg><image href="/etc/hostname"/></svg>',
    '<svg><image xlink:href="file:///etc/hostname"/></svg>',
    "<svg><use href='other.svg#a'/></svg>",
    '<svg><rect style="fill:url(http://example.com/p.svg#g)"/></svg>',
    '<!DOCTYPE svg [<!ENTITY x SYSTEM "/etc/passwd">]><svg>&x;</svg>',
  ]) {
    assert.throws(
      () => checkSvgReferences(svg, 'outputs/x.svg'),
      (error: unknown) => (error as { code?: string }).code === 'INVALID_ARGUMENTS',
      svg,
    );
  }
  checkSvgReferences('<svg><use href="#a"/><rect fill="url(#grad)"/><image href="data:image/png;base64,AAAA"/></svg>', 'outputs/x.svg');
});

test('property: an href to anything but #id or data: is always refused', () => {
  fc.assert(
    fc.property(
      fc.string({ minLength: 1 }).filter((target) => !target.startsWith('#') && !target.startsWith('data:') && !/["']/.test(target)),
      (target) => {
        assert.throws(() => checkSvgReferences(`<svg><image href="${target}"/></svg>`, 'x.svg'));
      },
    ),
  );
});

test('a PNG is drawn with its longest side capped, and a broken SVG is a coded error', () => {
  const image = rasterizeSvg({
    svg: '<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="1000"><rect width="4000" height="1000" fill="red"/></svg>',
    path: 'x.svg',
    maxSide: 800,
  });
  assert.equal(image.width, 800);
  assert.equal(image.height, 200);
  assert.equal(Buffer.from(image.png).readUInt32BE(0), 0x89504e47);
  assert.throws(
    () => rasterizeSvg({ svg: '<svg', path: 'x.svg', maxSide: 800 }),
    (error: unknown) => (error as { code?: string }).code === 'INVALID_ARGUMENTS',
  );
});
