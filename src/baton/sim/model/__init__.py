"""One model of GitHub's state and the rules GitHub follows, under its one face: GitHub's API
(`sim.api`), which `SimGitHub` reaches in process and the tests' HTTP fake serves on a socket."""
