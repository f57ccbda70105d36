// Package renovate runs the real Renovate (the npm package, on a Node from npm) over
// repositories of talops.yaml files with the preset renovate/talos.json5, its lookups
// answered by loopback fakes of the Image Factory and of an OCI registry. The tests are
// built with the tag renovate and run by .ci/run, which installs Renovate and names it in
// $RENOVATE; without it they fail, they never skip.
package renovate
