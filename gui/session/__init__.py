"""The session's work: opening and saving files, recovery, exports, background jobs, memory."""
