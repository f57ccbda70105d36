// Package talosctl maps complete machine configs (talosctl gen config output, or one
// config per node) onto a talops repository: the secrets they share become the bundle,
// and each node's differences from what talops generates become that node's patches, so
// that talops renders every config back, document by document and field by field.
package talosctl
