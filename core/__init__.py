"""What every app shares and none owns: domain errors, compiled queries, the API's
and the dashboard's commons. Imports no app of the project."""
