package workspace

// DiffReadBudget is diffReadBudget, for the tests.
const DiffReadBudget = diffReadBudget
