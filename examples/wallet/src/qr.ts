/**
 * The address as a QR code on Home, for a phone wallet to scan. Encoded by `uqr` (unjs, MIT: no dependencies, no
 * network, no DOM of its own; its modules come back as a matrix) and drawn here as one SVG path of the dark modules,
 * built with DOM calls (no markup string is parsed). Dark on white whatever the theme: scanners expect it.
 */
import { encode } from 'uqr';

const SVG = 'http://www.w3.org/2000/svg';

export function addressQr(address: string): SVGSVGElement {
  const { data, size } = encode(address, { ecc: 'M', border: 2 });
  let d = '';
  for (const [y, row] of data.entries()) {
    for (const [x, dark] of row.entries()) if (dark) d += `M${x} ${y}h1v1h-1z`;
  }
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${size} ${size}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', `QR code of the address ${address}`);
  svg.setAttribute('shape-rendering', 'crispEdges');
  svg.classList.add('address-qr');
  const background = document.createElementNS(SVG, 'rect');
  background.setAttribute('width', String(size));
  background.setAttribute('height', String(size));
  background.setAttribute('fill', '#fff');
  const modules = document.createElementNS(SVG, 'path');
  modules.setAttribute('d', d);
  modules.setAttribute('fill', '#000');
  svg.append(background, modules);
  svg.dataset.address = address;
  return svg;
}
