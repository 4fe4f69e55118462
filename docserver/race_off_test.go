//go:build !race

package docserver

const raceBuild = false
