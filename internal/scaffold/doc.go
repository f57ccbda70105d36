// Package scaffold generates the files a user starts from: the repository of a new cluster
// (talops init) and client configs signed by the cluster's CA (talops talosconfig). Values
// in, bytes out: the clock and the randomness are the caller's.
package scaffold
