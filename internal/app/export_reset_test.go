package app

// VMResetter is apply --proxmox-reset's way of bringing a node back, for its tests.
var VMResetter = vmResetter

// VMFindings is what plan --live says of the nodes' VMs, for its tests.
var VMFindings = vmFindings
