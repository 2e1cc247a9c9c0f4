// Package docs holds toolfold's user documentation: the Markdown pages the
// README links to, and the files their examples use (examples/). It has no
// code; its tests check that every relative link of README.md and the pages
// resolves, and that each page opens with a table of contents that matches
// its sections. The snippets and figures are checked by e2e/docs_test.go,
// the configuration reference by config/docs_test.go.
package docs
