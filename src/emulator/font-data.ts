/**
 * The Nano S Plus fonts and icons, transcribed from the Ledger SDK (Apache-2.0, (c) Ledger SAS):
 *
 * - REGULAR: lib_bagl/include/bagl_font_open_sans_regular_11px.inc of LedgerHQ/nanos-secure-sdk at 4a6bcc0, the
 *   format of SDK API level 12 and later that the Nano S Plus app is built with: one cropped bitmap per character
 *   and, per character, its bitmap offset, advance width, and the blank columns left (x min), rows above (y min)
 *   and columns right (x max) of the crop. Characters 0x20-0x7E; the font is 12 px high with its baseline at 9.
 * - BOLD: the same font file of the extra-bold 11 px font, in the same format, as LedgerHQ/speculos ships it for its
 *   OCR (speculos/fonts/bagl_font_open_sans_extrabold_11px-api-level-12.json at 1c0b8f1: the bitmap, base64 there,
 *   is hex here; each character's bitmap offset, width, x min, y min and x max). Its y max offsets are left out: the
 *   drawn rows end with each bitmap (a byte count that stops at the last inked byte, as the file's does).
 * - ICONS: the SDK glyphs lib_ux/glyphs/icon_*.gif as the SDK's build renders them for the Nano S Plus (1 bit per
 *   pixel, rows first, least significant bit first), from the generated glyphs.c of LedgerHQ/app-ethereum
 *   (build/nanos2/gen_src). `mina`, the app's own 16 x 16 glyph on "Mina is ready", is read from the real app's
 *   screen on Speculos (test/fixtures/speculos-screenshots/m0.png, x 57-72, y 10-25): the app ships it only as a
 *   GIF, which could not be read here, and the device's drawing of it is that glyph pixel for pixel.
 *
 * Bitmaps are hex; every bitmap is 1 bit per pixel, rows first, least significant bit first (the SDK's packing).
 */

export const REGULAR_BITMAP =
  'bf0f20929f42f949045f65cc0fa34aa5bda552c54e9218651abd036a950a956a0504f13312c88f1a030148442212969999692e4992878824f187688878104649' +
  'd20f411ff188781ef199698f4824229669996996998f782102684833840f0f21cc12874822207c82b9a5a5a5fd013e080a8522f289823fc61763fc7e8410c2f0' +
  '5f188661187e1ff111f13f84f043087e10047118fa6118fe611886ff2449921c51520c45128521841042f8c3c3c3a5a5999999e15896691a87be6030180c067d' +
  '2fc6f84208be6030180c067d10102fc6f8528c1e318c789f1042082161188661187a41914844a1501031ca2493524a29450821a1c4308c2485a124310882208f' +
  '4412f14f922439212244842749923c0c2349211f098f9ff921bc18637c1e11e110fa1863f49e1fe12c2f2222be24398217861e21bc18638cfd044992e4011159' +
  '5399ffef91919191912fc618232ec6181d2fc6185f08013ec6183d84104f92174378f222220e31c6183fa124490c031155a952458408996699a124490c431003' +
  '1f11223e96944832ff0793444a1ac3';

/**
 * Per character 0x20-0x7E, separated by spaces: bitmap offset, width, x min offset, y min offset, x max offset
 * (the SDK's table; its first field, the encoding, is 0 for every character and left out).
 */
export const REGULAR_CHARACTERS =
  '0 3 0 0 0 0 3 1 1 1 1 4 1 1 1 2 7 0 1 0 9 6 1 2 1 13 9 1 1 1 20 9 1 1 2 26 2 1 1 0 27 3 0 1 1 30 3 1 1 0 33 6 0 1 0 ' +
  '37 6 0 4 0 39 3 0 8 1 40 4 1 6 1 41 3 1 8 1 42 4 0 1 0 46 6 1 1 1 50 6 1 1 2 53 6 1 1 1 57 6 1 1 1 61 8 1 1 1 ' +
  '67 6 1 1 1 71 6 1 1 1 75 6 1 1 1 79 6 1 1 1 83 6 1 1 1 87 3 1 3 1 88 3 0 3 1 90 6 1 2 1 93 6 1 4 1 95 6 1 2 1 ' +
  '98 5 1 1 0 102 10 1 1 1 111 7 0 1 0 118 7 1 1 1 123 7 1 1 1 128 8 1 1 1 134 6 1 1 1 138 6 1 1 0 143 8 1 1 1 ' +
  '149 8 1 1 1 155 3 1 1 1 156 4 0 1 1 160 7 1 1 0 166 6 1 1 0 171 10 1 1 1 179 8 1 1 1 185 9 1 1 1 192 7 1 1 1 ' +
  '197 9 1 1 1 206 7 1 1 1 211 6 1 1 1 215 7 1 1 1 220 8 1 1 1 226 7 0 1 0 233 10 0 1 0 243 7 0 1 1 249 6 0 1 0 ' +
  '255 6 1 1 1 259 4 1 1 0 263 4 0 1 0 267 4 0 1 1 271 6 0 1 0 275 6 0 10 1 276 6 2 0 2 277 6 1 3 1 280 7 1 1 1 ' +
  '285 5 1 3 0 288 7 1 1 1 293 6 1 3 1 296 5 0 1 1 300 6 0 3 0 307 7 1 1 1 312 3 1 1 1 313 4 0 1 1 318 6 1 1 1 ' +
  '322 3 1 1 1 323 10 1 3 1 329 7 1 3 1 333 7 1 3 1 337 7 1 3 1 343 7 1 3 1 349 4 1 3 0 351 5 1 3 0 354 4 0 2 0 ' +
  '358 7 1 3 1 362 6 0 3 0 367 9 0 3 0 374 6 1 3 1 377 6 0 3 0 384 5 0 3 0 388 4 1 1 0 392 6 3 1 2 394 4 0 1 1 ' +
  '398 6 1 4 1';

/** Concatenated cropped bitmaps of the bold font (492 bytes), indexed by each character's offset. */
export const BOLD_BITMAP =
  'fff33b2524929ff297482488b72c0e87a61f024eacb1c27e7e638d35723c6cd8e0e0ed9e3ddf17b4b7cd26d96c7b0b4cfb7b1e0cf3330cd6ff0f1831668c18de' +
  '3ccff33c7beccfcccc6e63cc9cf90f6387317e18c769da8f613ff3ccfc9c217cf33c7b1f63cc1833de3c7bf33c7bde3ccf3e8c390f0f36600d98996118063ff0' +
  '03c330cccc0f63678031f83066f7d64bafbd9f01f801183c3c7e667ee7c37fefb7f7fe7e8c31c6f0df3ccff33c7f3ff333f37f8c37c618fe30ecf33cfbf33cff' +
  'f33ccfffffcccccccccc07f3d9e6f1d9cce6638c31c6f8c78fbf7fff7ef5eedde7f3fbbddfcfe7bef1783c1e8f7d7feffdc718bef1783c1e8f7d3030cfb66dcf' +
  'b6cd7e8ce3387f3fc3300cc330f33ccff33c7bf33ccf9ee73173b69bddac6635ee70071bc3663c3c3c3c66c3639b8d83c160307f180ec37018fe3f333333f343' +
  '18c318c2cfccccccfc0ce349333f331eeccfb30fc3f06dfbbe7dbc711c060f30ccdbf76df33cf3ff60e001dc7c638c317e9bcd63f08dc73e63fcbdf7def3ff0c' +
  'cccccccc07c3b07dcfb3edffffeddbdbdbdbdb7defbd371cdbfd6ee3dfb6efdb370c03be7ddfb60fc330fd33336f3c8f1fe61b630c077befbd2f639bcdc6e133' +
  'dbe69f7fcc3003771b8763bb03639b8dc6e170180e3fc630c60f9c31760e638c03ffff3fc718c3b931e66f0f';

/** Per character 0x20-0x7E, as REGULAR_CHARACTERS: bitmap offset, width, x min, y min and x max offsets. */
export const BOLD_CHARACTERS =
  '0 3 0 0 0 0 3 1 1 0 2 6 1 1 0 4 7 0 1 0 11 6 0 0 0 19 11 0 1 1 29 9 0 1 0 38 3 1 1 0 39 4 0 1 1 43 4 1 1 0 ' +
  '47 6 0 1 0 51 6 0 2 0 55 3 0 7 0 56 4 0 5 0 57 3 1 7 0 58 5 0 1 0 63 8 1 1 1 69 6 1 1 1 73 7 1 1 1 78 7 1 1 1 ' +
  '83 8 1 1 1 89 6 1 1 1 93 8 1 1 1 99 7 1 1 1 104 8 1 1 1 110 8 1 1 1 116 3 1 3 0 118 3 0 3 0 121 5 0 2 0 ' +
  '126 6 0 4 0 129 5 0 2 0 133 6 0 1 1 138 10 0 1 0 150 8 0 1 0 158 7 1 1 1 163 7 1 1 1 168 8 1 1 1 174 6 1 1 1 ' +
  '178 6 1 1 0 183 8 1 1 1 189 8 1 1 1 195 4 1 1 1 197 5 0 1 1 203 8 1 1 0 210 6 1 1 0 215 11 1 1 1 224 9 1 1 1 ' +
  '231 9 1 1 1 238 7 1 1 1 243 9 1 1 1 252 8 1 1 1 258 6 1 1 0 263 6 0 1 0 269 8 1 1 1 275 6 0 1 0 281 11 0 1 0 ' +
  '292 8 0 1 0 300 7 0 1 0 307 7 0 1 0 314 5 1 1 0 319 5 0 1 0 324 5 0 1 1 329 7 0 1 1 333 7 0 10 1 334 7 2 0 2 ' +
  '335 7 0 3 1 340 7 1 1 0 346 6 0 3 0 351 7 0 1 1 357 7 0 3 0 363 6 0 1 1 368 7 0 3 0 376 7 1 1 1 381 4 1 1 1 ' +
  '383 5 0 1 1 389 7 1 1 0 395 4 1 1 1 397 10 1 3 1 403 7 1 3 1 407 7 0 3 0 412 7 1 3 0 419 7 0 3 1 426 5 1 3 0 ' +
  '429 6 1 3 0 433 5 0 2 0 438 7 1 3 1 442 7 0 3 0 447 10 0 3 0 455 7 0 3 0 461 8 0 3 1 469 6 0 3 0 474 5 0 1 0 ' +
  '481 6 2 1 2 484 5 0 1 0 490 6 0 4 0';

/** The icons the Mina app's screens show, and the navigation arrows the SDK's layouts draw. */
export const ICONS = {
  eye: { width: 14, height: 14, bitmap: '000000001ee01f1c0e03638c19630c0c87837f800700000000' },
  validate: { width: 14, height: 14, bitmap: '000000000000c000380067e0381c9c037e000f800100000000' },
  crossmark: { width: 14, height: 14, bitmap: '008001e6c071383807fc001e8007f003cec1e1387006180000' },
  processing: { width: 14, height: 14, bitmap: '000030804c703b180600e0c03970000086c1ed2013c0000000' },
  warning: { width: 14, height: 14, bitmap: '000030000c80072001cc0033e01c3807ffc3f3f87cfe1f0000' },
  dashboard: { width: 14, height: 14, bitmap: '000000000c8007f003fec1fff03ff003cc0033c00c00000000' },
  mina: { width: 16, height: 16, bitmap: '0808141422222222222222222222222222222222222222222222222242218140' },
  left: { width: 4, height: 7, bitmap: '48124208' },
  right: { width: 4, height: 7, bitmap: '21842401' },
} as const;
