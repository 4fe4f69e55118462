package protocol

// The a2c_version range this project speaks. Version is what its clients
// send first; the events it uses (offices, list_room, tools, desktop,
// Finder) have the same wire shape from 0.2 through 0.4, the line of the
// official Python SDK a2c-smcp 0.4.x (which sends 0.4.0). A 0.x server
// accepts only its own MAJOR.MINOR, so a client refused with 4008 may
// retry with the server's version when that lies in this range.
const (
	MinVersion = "0.2.0"
	MaxVersion = "0.4.999"
)

// Speaks reports whether v lies in [MinVersion, MaxVersion's MAJOR.MINOR.*].
func Speaks(v ProtocolVersion) bool {
	lo, _ := ParseVersion(MinVersion)
	hi, _ := ParseVersion(MaxVersion)
	atLeastLo := v.Major > lo.Major || v.Major == lo.Major &&
		(v.Minor > lo.Minor || v.Minor == lo.Minor && v.Patch >= lo.Patch)
	atMostHi := v.Major < hi.Major || v.Major == hi.Major && v.Minor <= hi.Minor
	return atLeastLo && atMostHi
}
