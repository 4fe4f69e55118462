package pages

const (
	catalogChunk     = 50  // documents per get_finder request
	pageChunk        = 50  // pages per depth=pages read
	previewPages     = 8   // page titles shown in the catalog's preview
	previewCacheSize = 256 // documents whose preview is kept
	widePreview      = 110 // the catalog shows its preview pane from this width
)
