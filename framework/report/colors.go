package report

import "image/color"

// Colours of the charts, one per state or series, chosen to read apart in print.
var (
	colourWaiting    = color.RGBA{R: 0xe6, G: 0xa1, B: 0x17, A: 0xff}
	colourRunning    = color.RGBA{R: 0x2e, G: 0x9e, B: 0x4f, A: 0xff}
	colourTerminated = color.RGBA{R: 0x7a, G: 0x7a, B: 0x7a, A: 0xff}
	colourSucceeded  = color.RGBA{R: 0x2b, G: 0x6c, B: 0xb0, A: 0xff}
	colourFailed     = color.RGBA{R: 0xc0, G: 0x39, B: 0x2b, A: 0xff}
	colourOther      = color.RGBA{R: 0x8e, G: 0x44, B: 0xad, A: 0xff}
	colourExpected   = color.RGBA{R: 0x2b, G: 0x6c, B: 0xb0, A: 0xff}
	colourAllowed    = color.RGBA{R: 0x99, G: 0x99, B: 0x99, A: 0xff}
	colourMeasured   = color.RGBA{R: 0xd3, G: 0x54, B: 0x00, A: 0xff}
	colourOutside    = color.RGBA{R: 0xc0, G: 0x39, B: 0x2b, A: 0xff}
	colourEvent      = color.Black
)

// stateColour is the colour of a pod phase or container state in a timeline chart.
func stateColour(state string) color.Color {
	switch state {
	case "Pending", "Waiting":
		return colourWaiting
	case "Running":
		return colourRunning
	case "Terminated":
		return colourTerminated
	case "Succeeded":
		return colourSucceeded
	case "Failed":
		return colourFailed
	default:
		return colourOther
	}
}
