package protocol

// ServerEvents returns every server:* event a Server handles itself.
func ServerEvents() []string {
	return []string{
		EventJoinOffice, EventLeaveOffice, EventListRoom, EventToolCallCancel,
		EventUpdateConfig, EventUpdateToolList, EventUpdateDesktop, EventUpdateFinder, EventUpdateSkills,
	}
}

// Notifications returns every notify:* event a Server broadcasts to an
// office.
func Notifications() []string {
	return []string{
		NotifyEnterOffice, NotifyLeaveOffice, NotifyUpdateConfig, NotifyUpdateToolList,
		NotifyUpdateDesktop, NotifyUpdateFinder, NotifyToolCallCancel, NotifyUpdateSkills,
	}
}

// Events returns every SMCP event: ClientEvents, ServerEvents and
// Notifications. A test fails when an Event* or Notify* constant of this
// package is missing from it.
func Events() []string {
	return append(append(ClientEvents(), ServerEvents()...), Notifications()...)
}
