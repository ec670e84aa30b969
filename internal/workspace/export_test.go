package workspace

// DiffReadBudget is diffReadBudget, for the tests.
const DiffReadBudget = diffReadBudget

// NoRoom is noRoom, for the tests.
var NoRoom = noRoom
