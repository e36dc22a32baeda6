// Package address turns the addresses clients type into the normalized
// form that identifies a property, so that one address is one record.
//
// Clients send a street, city, state and ZIP as they please: "123 north main
// street", "123 N. Main St." and "  123 N MAIN ST  " are one building, and
// must resolve to one record and, once looked up, cost no further upstream
// call. Normalize validates the fields and rewrites them into USPS
// Publication 28 standard form; Normalized.Key is the lookup key built from
// that form, and Canonical applies the same rules to the geocoder's matched
// address so the store's unique constraint compares like with like.
//
// The normalized form is for identity only: it drops what a geocoder matches
// on (TIGER street names keep the apostrophe of "O'BRIEN", the hyphen of
// "I-95"; "North Shore Rd" may be a name rather than a directional), so the
// geocoder is sent Normalized.Written instead, through Building: the
// client's own street and city, trimmed, blanks collapsed, typographic
// apostrophes written as ASCII ones, and the unit cut off the street; the
// state as its USPS code and the ZIP as five digits.
//
// The street rules:
//
//   - Upper case (strings.ToUpper, so "Calle Ñandú" is "CALLE ÑANDÚ"),
//     punctuation removed, single spaces. An apostrophe inside a word is
//     dropped ("O'BRIEN" is "OBRIEN"); a hyphen or slash next to a digit
//     glues words and is kept only between two digits, so house numbers
//     such as "123-45" and fractions such as "1/2" survive and "4-B" is
//     "4B"; a hyphen between letters separates words.
//   - Directionals are abbreviated (NORTH→N, NORTHWEST or "N.W."→NW) when
//     they come before or after the street name, but not when they are the
//     name: "123 NORTH ST" and "456 WEST AVE" keep theirs.
//   - The last word is abbreviated when it is a street suffix (Appendix C1:
//     STREET→ST, AVENUE/AV/AVEN→AVE, BOULEVARD/BLVRD→BLVD, ...) and a name
//     is left before it; a suffix word elsewhere is part of the name ("100
//     AVENUE OF THE AMERICAS"), and so is one that is the whole name ("12
//     PARK"). In a numbered route the word before the number is abbreviated
//     ("HIGHWAY 50" is "HWY 50"). A one-word name spelled as an ordinal is
//     written as a number ("FIFTH AVE" is "5TH AVE").
//   - A secondary unit at the end ("Apt 4B", "Suite 200", "Bldg C Apt 4",
//     "Rear") is parsed off, its designator abbreviated (Appendix C2: APT,
//     BLDG, DEPT, FL, HNGR, LOT, RM, SLIP, SPC, STE, TRLR, UNIT, and BSMT,
//     FRNT, LBBY, LOWR, OFC, PH, REAR, SIDE, UPPR that stand alone), and
//     kept in Normalized.Unit: it is part of the identity, since two
//     apartments are two properties, but the geocoder gets the building
//     only. A bare pound sign stays a pound sign: "#12" is "# 12", the USPS
//     form when the designator is unknown, distinct from "UNIT 12" because
//     nothing says which designator the client meant. A unit is parsed only
//     when the building left over still looks like a street, so "123 Lot
//     St", "123 Old Unit Rd" and "45 Ocean Front" keep their names.
//   - PO boxes, private mailboxes and general delivery ("PO Box 12", "P.O.
//     Box", "Post Office Box", "POB 12", "Box 12" as the whole street, "PMB
//     34") are mail drops, not buildings: Normalize refuses them with
//     KindUnprocessable and code not_a_property. Streets that merely
//     contain the letters ("Boxwood Ln", "Box Elder St") and rural route
//     boxes ("RR 2 Box 5", a delivery point at a residence) are kept.
//
// The city is upper-cased with punctuation removed and its words kept as
// typed ("ST LOUIS" and "SAINT LOUIS" stay apart). The state is a two-letter
// USPS code of a state, DC or inhabited territory (AS, GU, MP, PR, VI), and
// full names are accepted ("Virginia" is "VA"). The ZIP is five digits; the
// +4 of a ZIP+4 is dropped because geocoders match on five digits and a
// client that sends it once and omits it later must hit the same key.
//
// Every rule depends on the class of a word (directional, suffix,
// designator, number), never on its spelling, and every token of the output
// re-tokenizes to itself, so normalizing a normalized address changes
// nothing: a key computed from a stored record equals the key of the
// spelling that created it. The fuzz tests hold the package to that.
//
// Normalization runs on every lookup: it works on stack buffers and
// allocates little beyond the strings it returns (a handful of small
// allocations per address). Everything here is safe for concurrent use.
package address
