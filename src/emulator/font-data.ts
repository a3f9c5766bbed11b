/**
 * The Nano S Plus fonts and icons, transcribed from the Ledger SDK (Apache-2.0, (c) Ledger SAS):
 *
 * - REGULAR: lib_bagl/include/bagl_font_open_sans_regular_11px.inc of LedgerHQ/nanos-secure-sdk at 4a6bcc0, the
 *   format of SDK API level 12 and later that the Nano S Plus app is built with: one cropped bitmap per character
 *   and, per character, its bitmap offset, advance width, and the blank columns left (x min), rows above (y min)
 *   and columns right (x max) of the crop. Characters 0x20-0x7E; the font is 12 px high with its baseline at 9.
 * - BOLD: lib_bagl/src/bagl_font_open_sans_extrabold_11px.inc of LedgerHQ/ledger-secure-sdk at d1d68f2 (the
 *   same data as the Rust SDK's ui/fonts/opensans.rs): the earlier format, one full 12-row cell per character
 *   0x20-0x7F and its width. The API-level-12 file of this font was not available; it is cropped when decoded
 *   (font.ts) as the SDK's font generator crops, so it draws and reports the same boxes.
 * - ICONS: the SDK glyphs lib_ux/glyphs/icon_*.gif as the SDK's build renders them for the Nano S Plus (1 bit per
 *   pixel, rows first, least significant bit first), from the generated glyphs.c of LedgerHQ/app-ethereum
 *   (build/nanos2/gen_src). MINA_LOGO is not the app's own 14x14 logo (Zondax/ledger-mina's glyph is a GIF that
 *   could not be read here) but a drawing of the Mina mark at that size: the idle screen's only approximated pixels.
 *
 * Bitmaps are hex; every bitmap is 1 bit per pixel, rows first, least significant bit first (the SDK's packing).
 */

/** Concatenated cropped bitmaps of the regular font (399 bytes), indexed by each character's offset. */
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

/** Width of each character 0x20-0x7F of the bold font (the SDK's table). */
export const BOLD_WIDTHS = [
  3, 3, 6, 7, 6, 10, 9, 3, 4, 4, 6, 6, 3, 4, 3, 5, 8, 6, 7, 7, 8, 6, 8, 7, 8, 8, 3, 3, 5, 6, 5, 6, 10, 8, 7, 7, 8, 6, 6, 8, 8, 4, 5, 8, 6,
  11, 9, 9, 7, 9, 8, 6, 6, 8, 6, 11, 8, 7, 7, 5, 5, 5, 7, 6, 7, 7, 7, 6, 7, 7, 6, 7, 7, 4, 5, 7, 4, 10, 7, 7, 7, 7, 5, 6, 5, 7, 7, 10, 7, 7,
  6, 5, 6, 5, 6, 6,
];

/** Each bold character's full cell (width x 12 rows), 0x20-0x7F, separated by spaces. */
export const BOLD_CELLS =
  '0000000000 b06dc30600 802d49000000000000 0012c94ff94b2412000000 88b72c0e87a61f0200 0038b1c60afbf98d35d6c801000000 ' +
  '0078d8b0c1c1db3d7bbe01000000 b004000000 406633336604 2066cccc6602 00d3fe9e0700000000 00c0303fc300000000 0000c01a00 ' +
  '0000f00f0000 0000c00600 0023c68c11030000 003c6666666666663c000000 00c679188661180000 008e0d06c370183e000000 ' +
  '000f0cc681c1601e000000 0030383834347e3030000000 8067181e86611e0000 00380c043e6666663c000000 001f0c06c360300c000000 ' +
  '003c66663c6666663c000000 003c6666667c60301c000000 006cc00600 006cc01a00 0060668661180000 0000003ff003000000 ' +
  '000cc33033030000 c083618e0118060000 00e0c398dd5b2fbdf67e06e0070000 00183c3c7e667ee7c3000000 009fcde6b1d96c3e000000 ' +
  '009ec16030180c3c000000 003e6666666666663e000000 8067189e61181e0000 806f189e6118060000 007c0606766666667c000000 ' +
  '006666667e66666666000000 606666660600 8031c618638cb103 00e666361e3e3666e6000000 8061188661183e0000 ' +
  '00709ce3bce73def59cd6e760300000000 009c39f3e6cd9e3d73e600000000 00f8183366cc9831637c00000000 009fcd66f3190c06000000 ' +
  '00f8183366cc9831637cc0000300 001e3636361e363666000000 006f180e87e71e0000 c0cf300cc3300c0000 00666666666666663c000000 ' +
  'c03ccfb3e7790c0000 0098b3ddec6635ab71873bd80000000000 00c3663c3c3c3c66c3000000 80b1cdc6c1603018000000 ' +
  '803f0c8761380c7f000000 c01b638c31c67800 6008631843180000 e031c618638c3d00 0006c32399010000000000 00000000000000f003 ' +
  '0c0c000000000000000000 0000c003f3cd663e000000 0083c167b3db6d3e000000 0000f0c671183c0000 00188c67bbdd6c3c000000 ' +
  '00008067fe1f0c3c000000 00677c866118060000 0000c06fb3790cbef1d807 0083c167b3d96c36000000 606066660600 8001c618638c3103 ' +
  '0083c1e6f3786c76000000 606666660600 0000008076b6d9669b6db601000000 00004067b3d96c36000000 00008063bbdf6d1c000000 ' +
  '0000c067b3db6d3e83c100 0000c067bbdd6c3e180c06 0000ed8d31060000 00007886c7c31e0000 00986f8c311c0000 ' +
  '0000c066b3d96c2e000000 0000606cb3d9381c000000 000000c0ccb6f9e71f33cc00000000 0000e06ee3706c77000000 ' +
  '0000606cb3d1381c06c300 0000fc18c3183f0000 8033c6ce618c7100 00c3300cc3300cc330 e018633837c61c00 0000006f0f00000000 ' +
  '8027499224491e0000';

/** The icons the Mina app's screens show, and the navigation arrows the SDK's layouts draw. */
export const ICONS = {
  eye: { width: 14, height: 14, bitmap: '000000001ee01f1c0e03638c19630c0c87837f800700000000' },
  validate: { width: 14, height: 14, bitmap: '000000000000c000380067e0381c9c037e000f800100000000' },
  crossmark: { width: 14, height: 14, bitmap: '008001e6c071383807fc001e8007f003cec1e1387006180000' },
  processing: { width: 14, height: 14, bitmap: '000030804c703b180600e0c03970000086c1ed2013c0000000' },
  warning: { width: 14, height: 14, bitmap: '000030000c80072001cc0033e01c3807ffc3f3f87cfe1f0000' },
  dashboard: { width: 14, height: 14, bitmap: '000000000c8007f003fec1fff03ff003cc0033c00c00000000' },
  mina: { width: 14, height: 14, bitmap: '000000608039701e9ecd669e19630698016680196000000000' },
  left: { width: 4, height: 7, bitmap: '48124208' },
  right: { width: 4, height: 7, bitmap: '21842401' },
} as const;
