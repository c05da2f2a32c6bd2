// One colour per attention head, shared by every view that tells heads apart (the line view's lines
// and legend, the head small multiples' titles). The colours are the Okabe–Ito palette (Okabe & Ito
// 2008, "Color Universal Design"), the usual colour-blind-safe set of 8 categorical colours; they
// are defined in style.css as --head-1 … --head-8 so that they follow the light/dark theme, and the
// figures only set classes (which exported SVGs turn into plain colours, see export.js).
//
// Order: blue, orange, bluish green, reddish purple, sky blue, vermillion, yellow, black. 2 heads get
// the blue/orange pair, told apart under every kind of colour blindness; 4 and 5 heads add the
// colours that stay furthest from those under deutan, protan and tritan simulation; yellow and black,
// which each vanish on one of the two backgrounds, come last and are adjusted per theme:
//   light: yellow is darkened (same hue) to an olive that reads on white; black stays;
//   dark:  black becomes the page's light text colour; yellow stays; blue is lightened a little.
// Orange and sky blue stay as they are on white (about 2.3:1): darker, they would come close to
// vermillion and bluish green for deutan and tritan vision (checked by simulation, CIEDE2000).
//
// More than 8 heads (the page offers up to 10): head 9 takes head 1's colour and head 10 head 2's
// (colour = head mod 8), and heads from the second round are drawn dashed, in the lines and in
// their legend swatches. Colour is never the only cue: every legend entry and head panel is labelled
// "head N", and the legend's toggles show one head's lines alone.

export const HEAD_COLOURS = 8;

/** The class names that colour head h (0-based): "head-c<h mod 8>", plus "head-repeat" from head 9 on. */
export function headClass(h) {
  return `head-c${h % HEAD_COLOURS}${h >= HEAD_COLOURS ? ' head-repeat' : ''}`;
}
