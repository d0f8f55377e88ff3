/**
 * What other modules may ask of gradings: nothing yet. Quarantine itself belongs to the green lot (the
 * green module's quarantineGreenLot / releaseGreenLotQuarantine); gradings are read with listGradings.
 */
export {};
