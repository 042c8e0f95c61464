package community

// DisplayFloor is how a public count is shown: rounded down to a round number (its leading
// digit followed by zeros: 5,432 → 5,000; 37 → 30; 7 → 7) so that "5,000+" is always true, and
// hidden (ok false) below minimum, where a small count would say more about the platform's
// size than reassure, and could point at individuals. minimum below 1 is taken as 1: a zero is
// never shown as social proof.
func DisplayFloor(count, minimum int) (floor int, ok bool) {
	if count < max(minimum, 1) {
		return 0, false
	}
	unit := 1
	for count/unit >= 10 {
		unit *= 10
	}
	return count / unit * unit, true
}
