"""Synsema agents on AgentDojo (pinned agentdojo==0.1.35, benchmark v1.2.2); see README.md."""
