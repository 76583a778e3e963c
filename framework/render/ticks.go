package render

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// wholeTicks marks an axis at round steps (1, 2 or 5 × 10ⁿ, about five of them) and
// labels them without decimals: delays in ms and offsets in s read better so than
// with gonum's default two decimals.
type wholeTicks struct{}

func (wholeTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: format(lo)}}
	}
	step := niceStep((hi - lo) / 5)
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi+step/1e6; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: format(v)})
		if minor := v + step/2; minor < hi {
			ticks = append(ticks, plot.Tick{Value: minor})
		}
	}
	return ticks
}

// niceStep is the round step nearest above raw.
func niceStep(raw float64) float64 {
	magnitude := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*magnitude >= raw {
			return m * magnitude
		}
	}
	return 10 * magnitude
}

func format(v float64) string {
	if math.Abs(v) < 1e-9 {
		v = 0
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
