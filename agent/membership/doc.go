// Package membership is the node list an agent runs, and how it comes to
// agree with every other agent's: the room of the list's synchronisation.
//
//   - Where an agent starts (start.go): its file's list, unless state_dir
//     holds one learned or changed since; a file or keyring edited while
//     the agent was down is applied as changes at its first interval.
//   - Changes made here (changes.go): a manager's added or removed node, a
//     maintenance window, a key installed, used or removed, a reload of the
//     files. Each is stamped with this agent's clock, queued for the next
//     interval (Pending) and saved before it returns, so a change
//     acknowledged survives a crash.
//   - Lists read from peers (sync.go): after each interval the loop hands
//     Merge the lists its sources run; the room reads the one of the most
//     changes, as a delta when it can, and merges it into the latest list.
//     A list no correct agent could have made is refused and counted; one
//     of another file is a conflict; a change made here that a merge undid
//     is told to the station.
//   - Collection (collect.go): once every agent runs one list, the facts it
//     holds that say nothing any more are dropped, and their ids given to
//     the next adds.
//   - The cluster keys (keys.go), which ride the list, and the tables that
//     serve it (table.go).
//
// The loop owns the list it runs and switches to the queued one between
// two intervals (Host.Apply, Applied); the room asks the agent through a
// small Host: its clock, a save, and serving the next id at once.
package membership
