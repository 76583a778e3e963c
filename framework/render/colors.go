package render

import "image/color"

// Colours of the charts, one per state or series, chosen to read apart in print.
const (
	colourWaiting    = 0xe6a117
	colourRunning    = 0x2e9e4f
	colourTerminated = 0x7a7a7a
	colourSucceeded  = 0x2b6cb0
	colourFailed     = 0xc0392b
	colourOther      = 0x8e44ad
	colourExpected   = 0x2b6cb0
	colourAllowed    = 0x999999
	colourMeasured   = 0xd35400
	colourOutside    = 0xc0392b
	colourEvent      = 0x000000
)

// rgb is an opaque colour from its hex code.
func rgb(hex uint32) color.Color {
	return color.RGBA{R: uint8(hex >> 16), G: uint8(hex >> 8), B: uint8(hex), A: 0xff}
}

// stateColour is the colour of a pod phase or container state in a timeline chart.
func stateColour(state string) color.Color {
	switch state {
	case "Pending", "Waiting":
		return rgb(colourWaiting)
	case "Running":
		return rgb(colourRunning)
	case "Terminated":
		return rgb(colourTerminated)
	case "Succeeded":
		return rgb(colourSucceeded)
	case "Failed":
		return rgb(colourFailed)
	default:
		return rgb(colourOther)
	}
}
