// Package console holds the tenant console's pages: html/template files and the static CSS and
// JavaScript they load, embedded in the binary. It knows nothing of HTTP: adapters/console
// parses the templates, serves the static files and renders the pages.
package console

import (
	"embed"
	"html/template"
	"io/fs"
	"strings"
)

//go:embed templates/*.html
var templates embed.FS

//go:embed static
var static embed.FS

// Static is the tree of static files (console.css, console.js), served under /console/static/.
func Static() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the directory is embedded above
	}
	return sub
}

// Pages parses every page template with the shared layout, keyed by page name (the file name
// without .html); funcs are the helpers the templates call.
func Pages(funcs template.FuncMap) (map[string]*template.Template, error) {
	entries, err := fs.ReadDir(templates, "templates")
	if err != nil {
		return nil, err
	}
	pages := map[string]*template.Template{}
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".html")
		if name == "layout" {
			continue
		}
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templates, "templates/layout.html", "templates/"+e.Name())
		if err != nil {
			return nil, err
		}
		pages[name] = t
	}
	return pages, nil
}
