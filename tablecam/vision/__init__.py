"""tablecam.vision"""
