// Package talhelper maps a talhelper repository (talconfig.yaml and the patch files it
// names) onto a talops repository: bytes in, the files of the new repository and findings
// out. It reads nothing itself; the application layer hands it the files and the
// environment talhelper would have substituted.
//
// The mapping keeps talhelper's order of work, which decides how lists merge and which
// value wins: talhelper generates each node's config, sets the fields of the node's own
// section (labels, taints, kernel modules, disk selector...), adds its documents (the
// hostname), then applies the role's and the node's patches and last the global ones. The
// imported node lists its patches in that order; shared patches stay shared files.
package talhelper
