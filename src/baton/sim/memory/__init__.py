"""The in-memory GitHub's `Tracker` calls by role, over one `GitHubState`;
`memory_github.MemoryGitHub` composes them with the helpers that play humans and CI."""
