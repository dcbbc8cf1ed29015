package picture

import (
	"fmt"
	"math"
)

// Colour is the stable colour of thread t: each warp is a hue family
// (hues a golden angle apart), the lanes of a warp vary in lightness
// (lane % 4) and, a little, in hue (lane / 4), so neighbouring lanes
// differ. Idle and unowned cells are light grey.
func Colour(t int) string {
	if t < 0 {
		return "#e8e8e8"
	}
	if t < len(colours) {
		return colours[t]
	}
	return colour(t)
}

// colours are the first 1024 threads' colours, computed once.
var colours = func() []string {
	out := make([]string, 1024)
	for t := range out {
		out[t] = colour(t)
	}
	return out
}()

func colour(t int) string {
	warp, lane := t/32, t%32
	hue := math.Mod(float64(warp)*137.508+200, 360) + float64(lane/4)*5 - 17
	light := 0.38 + float64(lane%4)*0.12
	return hsl(hue, 0.65, light)
}

// TextColour is black or white, whichever reads better on Colour(t).
func TextColour(t int) string {
	if t < 0 {
		return "#555555"
	}
	if (t%32)%4 >= 2 {
		return "#000000"
	}
	return "#ffffff"
}

func hsl(h, s, l float64) string {
	h = math.Mod(math.Mod(h, 360)+360, 360) / 360
	var r, g, b float64
	q := l * (1 + s)
	if l >= 0.5 {
		q = l + s - l*s
	}
	p := 2*l - q
	r, g, b = hue2rgb(p, q, h+1.0/3), hue2rgb(p, q, h), hue2rgb(p, q, h-1.0/3)
	return fmt.Sprintf("#%02x%02x%02x", int(math.Round(r*255)), int(math.Round(g*255)), int(math.Round(b*255)))
}

func hue2rgb(p, q, t float64) float64 {
	if t < 0 {
		t++
	}
	if t > 1 {
		t--
	}
	switch {
	case t < 1.0/6:
		return p + (q-p)*6*t
	case t < 1.0/2:
		return q
	case t < 2.0/3:
		return p + (q-p)*(2.0/3-t)*6
	}
	return p
}
