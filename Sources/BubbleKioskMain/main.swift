import KioskCommands

// The kiosk binary: the commands with the kiosk's own backends (DRM, fbdev, virtual; evdev).
BubbleKiosk.main()
