package output

import "github.com/fatih/color"

// paint returns the colour of attrs, on or off as color.NoColor says.
// color.New alone also turns itself off whenever NO_COLOR holds a value,
// which would make --color always powerless; main has already weighed
// NO_COLOR when it set color.NoColor.
func paint(attrs ...color.Attribute) *color.Color {
	c := color.New(attrs...)
	if !color.NoColor {
		c.EnableColor()
	}
	return c
}
