echo hello from the workspace
