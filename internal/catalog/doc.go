// Package catalog holds the Talos release facts talops checks against, as data: the image tag
// of every official system extension per Talos release (embedded JSON, refreshed from the Image
// Factory), the NVIDIA extension model, and the Kubernetes ranges and upgrade floors that
// Talos machinery's compatibility package carries.
//
// Everything here is pure: bytes or strings in, values or typed errors out. Nothing reaches
// the network; refreshing the data takes an injected fetcher.
package catalog
