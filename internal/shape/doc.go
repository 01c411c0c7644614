// Package shape holds the test that keeps the format packages to the
// README's "API at a glance" table: each row's names and signatures, in
// every package, or the package named in the row with its reason.
package shape
