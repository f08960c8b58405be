"""The agents' side: the briefing an agent reads, its sanitizing, and running a CLI agent."""
