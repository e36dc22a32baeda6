// Package providers is the vocabulary of propertyd: the property record, the
// enrichment section types, the interfaces every upstream module and storage
// backend implements, the error type that carries a stable public code, and the
// module registry.
//
// It imports nothing heavy on purpose: every other package may import it, and
// it imports none of them. One sub-package per upstream (census, femanfhl, ...)
// registers itself here by name in init; cmd/propertyd pulls them all in
// through providers/all.
package providers
