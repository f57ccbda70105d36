// Package topf maps a topf repository (topf.yaml, its patch directories all/, <role>/ and
// node/<host>/, its templates and schematic files) onto a talops repository. It is pure:
// bytes and a file listing in, files and findings out; the app reads and writes.
//
// topf renders every node the same way: the generator's config for the role, the
// installer image of the node's schematic, then the patches of all/, of the role and of
// the node, each directory in lexical order. Templates (.tpl) are rendered here, per
// node, with topf's template context; talops has no templating, so what a template
// renders becomes a plain patch.
package topf
