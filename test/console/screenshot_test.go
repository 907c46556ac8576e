package console

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/chromedp/chromedp"
)

// screenshot writes a PNG of the whole page to docs/console/<name>.png when
// CONSOLE_SCREENSHOTS is set (`CONSOLE_SCREENSHOTS=1 go test ./test/console -run
// TestConsoleBrowser`); otherwise it does nothing.
func screenshot(t *testing.T, name string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		if os.Getenv("CONSOLE_SCREENSHOTS") == "" {
			return nil
		}
		var buf []byte
		if err := chromedp.FullScreenshot(&buf, 100).Do(ctx); err != nil {
			return err
		}
		small, err := paletted(buf)
		if err != nil {
			return err
		}
		dir := filepath.Join("..", "..", "docs", "console")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		t.Logf("screenshot %s.png: %d bytes", name, len(small))
		return os.WriteFile(filepath.Join(dir, name+".png"), small, 0o644)
	})
}

// paletted re-encodes a screenshot with its 256 most frequent colours (a page is mostly flat
// colours and anti-aliased text), which keeps each file around a third of Chromium's PNG.
func paletted(raw []byte) ([]byte, error) {
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	b := img.Bounds()
	at := func(x, y int) color.RGBA {
		r, g, bl, _ := img.At(x, y).RGBA()
		return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 255}
	}
	counts := map[color.RGBA]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			counts[at(x, y)]++
		}
	}
	colors := make([]color.RGBA, 0, len(counts))
	for c := range counts {
		colors = append(colors, c)
	}
	sort.Slice(colors, func(i, j int) bool {
		if counts[colors[i]] != counts[colors[j]] {
			return counts[colors[i]] > counts[colors[j]]
		}
		ci, cj := colors[i], colors[j]
		return uint32(ci.R)<<16|uint32(ci.G)<<8|uint32(ci.B) < uint32(cj.R)<<16|uint32(cj.G)<<8|uint32(cj.B)
	})
	pal := color.Palette{}
	for i := 0; i < len(colors) && i < 256; i++ {
		pal = append(pal, colors[i])
	}
	out := image.NewPaletted(b, pal)
	index := map[color.RGBA]uint8{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := at(x, y)
			i, ok := index[c]
			if !ok {
				i = uint8(pal.Index(c)) //nolint:gosec // a palette of at most 256 colours
				index[c] = i
			}
			out.SetColorIndex(x, y, i)
		}
	}
	var w bytes.Buffer
	err = (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&w, out)
	return w.Bytes(), err
}
