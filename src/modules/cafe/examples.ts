import type { OperationExamples } from '../../rpc/examples.js';

/** A request and its answer for each of the module's operations, shown in the API reference (checked against the schemas by test/examples.test.ts). */
export const examples: OperationExamples = {
  'cafe.createSite': {
    "input": {
      "name": "Quiet corner",
      "code": "QUIET",
      "timezone": "Europe/Berlin"
    },
    "output": {
      "id": "cs_01m8gf40qkhxw5pmrqnrb56aw9",
      "code": "QUIET",
      "name": "Quiet corner",
      "locationId": null,
      "timezone": "Europe/Berlin",
      "shotTarget": {
        "doseG": 18,
        "ratioMax": 2.5,
        "ratioMin": 1.8,
        "timeMaxS": 32,
        "timeMinS": 25,
        "doseToleranceG": 1,
        "channelingBelowS": 18
      },
      "createdAt": "2026-11-28T06:57:41.106Z"
    }
  },
  'cafe.getLiveBar': {
    "input": {
      "siteId": "cs_01m8geh9vhbxrs4tqh2n0tqezn"
    },
    "output": {
      "siteId": "cs_01m8geh9vhbxrs4tqh2n0tqezn",
      "asOf": "2026-11-28T06:47:27.977Z",
      "windowSeconds": 300,
      "groupHeads": [
        {
          "machineId": "bm_01m8geh9y6h0sbzyb43mjb0t5q",
          "machineCode": "LM-LINEA-1",
          "group": 1,
          "shots": [
            {
              "shotId": "s-1042-63",
              "machineId": "bm_01m8geh9y6h0sbzyb43mjb0t5q",
              "group": 1,
              "startedAt": "2026-11-28T06:46:57.955Z",
              "durationS": 28,
              "doseG": 18,
              "yieldG": 38,
              "outsideTarget": false,
              "channeling": false
            },
            {
              "shotId": "s-1042-64",
              "machineId": "bm_01m8geh9y6h0sbzyb43mjb0t5q",
              "group": 1,
              "startedAt": "2026-11-28T06:45:57.955Z",
              "durationS": 28,
              "doseG": 18,
              "yieldG": 38,
              "outsideTarget": false,
              "channeling": false
            }
          ],
          "failing": false,
          "reasons": []
        },
        {
          "machineId": "bm_01m8geh9y6h0sbzyb43mjb0t5q",
          "machineCode": "LM-LINEA-1",
          "group": 2,
          "shots": [
            {
              "shotId": "s-1042-65",
              "machineId": "bm_01m8geh9y6h0sbzyb43mjb0t5q",
              "group": 2,
              "startedAt": "2026-11-28T06:47:07.955Z",
              "durationS": 40,
              "doseG": 18,
              "yieldG": 38,
              "outsideTarget": true,
              "channeling": false
            },
            {
              "shotId": "s-1042-66",
              "machineId": "bm_01m8geh9y6h0sbzyb43mjb0t5q",
              "group": 2,
              "startedAt": "2026-11-28T06:46:27.955Z",
              "durationS": 41,
              "doseG": 18,
              "yieldG": 38,
              "outsideTarget": true,
              "channeling": false
            },
            {
              "shotId": "s-1042-67",
              "machineId": "bm_01m8geh9y6h0sbzyb43mjb0t5q",
              "group": 2,
              "startedAt": "2026-11-28T06:45:47.955Z",
              "durationS": 28,
              "doseG": 18,
              "yieldG": 38,
              "outsideTarget": false,
              "channeling": false
            }
          ],
          "failing": true,
          "reasons": [
            {
              "code": "outside_target",
              "detail": "3 of its last 4 shots were outside the target"
            }
          ]
        },
        {
          "machineId": "bm_01m8geh9y6h0sbzyb43mjb0t5q",
          "machineCode": "LM-LINEA-1",
          "group": 3,
          "shots": [
            {
              "shotId": "s-1042-69",
              "machineId": "bm_01m8geh9y6h0sbzyb43mjb0t5q",
              "group": 3,
              "startedAt": "2026-11-28T06:47:17.955Z",
              "durationS": 12,
              "doseG": 18,
              "yieldG": 38,
              "outsideTarget": true,
              "channeling": true
            },
            {
              "shotId": "s-1042-70",
              "machineId": "bm_01m8geh9y6h0sbzyb43mjb0t5q",
              "group": 3,
              "startedAt": "2026-11-28T06:46:37.955Z",
              "durationS": 14,
              "doseG": 18,
              "yieldG": 38,
              "outsideTarget": true,
              "channeling": true
            }
          ],
          "failing": true,
          "reasons": [
            {
              "code": "channeling",
              "detail": "2 of its last 2 shots ran channeling-fast"
            }
          ]
        }
      ],
      "failing": [
        {
          "machineId": "bm_01m8geh9y6h0sbzyb43mjb0t5q",
          "group": 2,
          "reasons": [
            {
              "code": "outside_target",
              "detail": "3 of its last 4 shots were outside the target"
            }
          ]
        },
        {
          "machineId": "bm_01m8geh9y6h0sbzyb43mjb0t5q",
          "group": 3,
          "reasons": [
            {
              "code": "channeling",
              "detail": "2 of its last 2 shots ran channeling-fast"
            }
          ]
        }
      ]
    }
  },
  'cafe.getSitePerformance': {
    "input": {
      "siteId": "cs_01m8gehbd8bgppw6t4xva462tn",
      "from": "2026-11-20",
      "to": "2026-11-22"
    },
    "output": {
      "siteId": "cs_01m8gehbd8bgppw6t4xva462tn",
      "timezone": "America/New_York",
      "from": "2026-11-20",
      "to": "2026-11-22",
      "totals": {
        "shots": 4,
        "outsideTargetShots": 1,
        "failingShare": 0.25,
        "channelingShots": 0,
        "saleShotEquivalents": 3,
        "variance": 1
      },
      "days": [
        {
          "date": "2026-11-20",
          "shots": 3,
          "outsideTargetShots": 1,
          "failingShare": 0.3333,
          "channelingShots": 0,
          "saleShotEquivalents": 2,
          "variance": 1
        },
        {
          "date": "2026-11-21",
          "shots": 1,
          "outsideTargetShots": 0,
          "failingShare": 0,
          "channelingShots": 0,
          "saleShotEquivalents": 1,
          "variance": 0
        },
        {
          "date": "2026-11-22",
          "shots": 0,
          "outsideTargetShots": 0,
          "failingShare": 0,
          "channelingShots": 0,
          "saleShotEquivalents": 0,
          "variance": 0
        }
      ],
      "hours": [
        {
          "hour": 0,
          "shots": 0,
          "outsideTargetShots": 0,
          "failingShare": 0,
          "channelingShots": 0,
          "saleShotEquivalents": 0,
          "variance": 0
        },
        {
          "hour": 1,
          "shots": 0,
          "outsideTargetShots": 0,
          "failingShare": 0,
          "channelingShots": 0,
          "saleShotEquivalents": 0,
          "variance": 0
        },
        {
          "hour": 2,
          "shots": 0,
          "outsideTargetShots": 0,
          "failingShare": 0,
          "channelingShots": 0,
          "saleShotEquivalents": 0,
          "variance": 0
        }
      ],
      "groupHeads": [
        {
          "machineId": "bm_01m8gehbf78h1e5c6jawnc40gn",
          "group": 1,
          "shots": 2,
          "outsideTargetShots": 1,
          "failingShare": 0.5,
          "channelingShots": 0,
          "meanDurationS": 36.5
        },
        {
          "machineId": "bm_01m8gehbf78h1e5c6jawnc40gn",
          "group": 2,
          "shots": 2,
          "outsideTargetShots": 0,
          "failingShare": 0,
          "channelingShots": 0,
          "meanDurationS": 28
        }
      ]
    }
  },
  'cafe.importPosSales': {
    "input": {
      "siteId": "cs_01m8gehp3arbhhkzzhmv47jzme",
      "lines": [
        {
          "posLineId": "eq-0",
          "soldAt": "2025-12-31T20:15:00.000Z",
          "item": "Double espresso",
          "quantity": 1,
          "shotEquivalents": 2
        },
        {
          "posLineId": "eq-1",
          "soldAt": "2026-01-01T17:50:00.000Z",
          "item": "Double espresso",
          "quantity": 2,
          "shotEquivalents": 2
        },
        {
          "posLineId": "eq-2",
          "soldAt": "2026-01-02T15:25:00.000Z",
          "item": "Double espresso",
          "quantity": 1,
          "shotEquivalents": 2
        }
      ]
    },
    "output": {
      "siteId": "cs_01m8gehp3arbhhkzzhmv47jzme",
      "received": 447,
      "new": 447,
      "known": 0,
      "newShotEquivalents": 1340
    }
  },
  'cafe.issueBarMachineToken': {
    "input": {
      "machineId": "bm_01m8geh2xhzg2aanmags61spss"
    },
    "output": {
      "id": "brt_01m8geh2zx23znw1qgpc02wg12",
      "token": "fcb_eXwVrqKGGBrd1-mw0sGiOlQWLvUi2uwA_GTmemKk2Bo",
      "machineId": "bm_01m8geh2xhzg2aanmags61spss",
      "expiresAt": "2026-12-28T06:47:20.829Z"
    }
  },
  'cafe.listMachines': {
    "input": {
      "filter": {
        "siteId": "cs_01m8gehc0qzvfwnvq1429ygj02"
      }
    },
    "output": {
      "items": [
        {
          "id": "bm_01m8gehc1a1gntc7q7e6v7c9bb",
          "siteId": "cs_01m8gehc0qzvfwnvq1429ygj02",
          "code": "SIM-1",
          "name": "Simulated espresso machine 1",
          "kind": "espresso_machine",
          "groupCount": 2,
          "brand": null,
          "model": null,
          "deviceId": null,
          "createdAt": "2026-11-28T06:47:30.089Z"
        },
        {
          "id": "bm_01m8gehc1xcdq7mgk60149858q",
          "siteId": "cs_01m8gehc0qzvfwnvq1429ygj02",
          "code": "SIM-2",
          "name": "Simulated espresso machine 2",
          "kind": "espresso_machine",
          "groupCount": 2,
          "brand": null,
          "model": null,
          "deviceId": null,
          "createdAt": "2026-11-28T06:47:30.108Z"
        }
      ],
      "nextCursor": null
    }
  },
  'cafe.listReconciliations': {
    "input": {
      "filter": {
        "siteId": "cs_01m8gehavehjet7wsk89q8nxdz",
        "from": "2026-10-25",
        "to": "2026-10-25"
      }
    },
    "output": {
      "items": [
        {
          "id": "rec_01m8gehb3n44gmshx504w0sxpd",
          "siteId": "cs_01m8gehavehjet7wsk89q8nxdz",
          "businessDate": "2026-10-25",
          "version": 1,
          "timezone": "Europe/Berlin",
          "dayStart": "2026-10-24T22:00:00.000Z",
          "dayEnd": "2026-10-25T23:00:00.000Z",
          "hours": 25,
          "shotsPulled": 3,
          "saleShotEquivalents": 4,
          "variance": -1,
          "machines": [
            {
              "machineId": "bm_01m8gehax15z52r2xmebb9ad9m",
              "shotsPulled": 3,
              "shareOfShots": 1
            }
          ],
          "createdAt": "2026-11-28T06:47:29.133Z"
        },
        {
          "id": "rec_01m8gehb62a99pqep0xvdb0598",
          "siteId": "cs_01m8gehavehjet7wsk89q8nxdz",
          "businessDate": "2026-10-25",
          "version": 2,
          "timezone": "Europe/Berlin",
          "dayStart": "2026-10-24T22:00:00.000Z",
          "dayEnd": "2026-10-25T23:00:00.000Z",
          "hours": 25,
          "shotsPulled": 5,
          "saleShotEquivalents": 4,
          "variance": 1,
          "machines": [
            {
              "machineId": "bm_01m8gehax15z52r2xmebb9ad9m",
              "shotsPulled": 5,
              "shareOfShots": 1
            }
          ],
          "createdAt": "2026-11-28T06:47:29.209Z"
        }
      ],
      "nextCursor": null
    }
  },
  'cafe.listShots': {
    "input": {
      "filter": {
        "siteId": "cs_01m8geh2tb7r6ftgepws4ja17d",
        "from": "2026-11-28T06:46:21.208Z",
        "to": "2026-11-28T06:48:21.208Z"
      }
    },
    "output": {
      "items": [
        {
          "id": "sht_01m8geh36n56qyb7ngkk6qgjh3",
          "siteId": "cs_01m8geh2tb7r6ftgepws4ja17d",
          "machineId": "bm_01m8geh2xhzg2aanmags61spss",
          "shotId": "s-1042-1",
          "group": 1,
          "startedAt": "2026-11-28T06:47:20.974Z",
          "durationS": 28,
          "doseG": 18,
          "yieldG": 38,
          "ratio": 2.11,
          "outsideTarget": false,
          "channeling": false,
          "pressureBar": null,
          "temperatureC": null,
          "flow": null,
          "receivedAt": "2026-11-28T06:47:21.035Z"
        },
        {
          "id": "sht_01m8geh36n83tgtssxzbp2zxbp",
          "siteId": "cs_01m8geh2tb7r6ftgepws4ja17d",
          "machineId": "bm_01m8geh2xhzg2aanmags61spss",
          "shotId": "s-1042-2",
          "group": 2,
          "startedAt": "2026-11-28T06:47:20.974Z",
          "durationS": 15,
          "doseG": 18,
          "yieldG": 38,
          "ratio": 2.11,
          "outsideTarget": true,
          "channeling": true,
          "pressureBar": [
            2,
            9,
            9
          ],
          "temperatureC": null,
          "flow": null,
          "receivedAt": "2026-11-28T06:47:21.035Z"
        },
        {
          "id": "sht_01m8geh38hy3138wteeg566dq2",
          "siteId": "cs_01m8geh2tb7r6ftgepws4ja17d",
          "machineId": "bm_01m8geh2xhzg2aanmags61spss",
          "shotId": "s-1042-3",
          "group": 1,
          "startedAt": "2026-11-28T06:47:21.095Z",
          "durationS": 28,
          "doseG": 18,
          "yieldG": 38,
          "ratio": 2.11,
          "outsideTarget": false,
          "channeling": false,
          "pressureBar": null,
          "temperatureC": null,
          "flow": null,
          "receivedAt": "2026-11-28T06:47:21.104Z"
        }
      ],
      "truncated": false
    }
  },
  'cafe.listSites': {
    "input": {
      "page": {
        "limit": 200
      }
    },
    "output": {
      "items": [
        {
          "id": "cs_01m8gegwjmz9pn59cb1nzkzbmd",
          "code": "BAR-1",
          "name": "Corner",
          "locationId": "loc_01m8gegw31ajv2pzk111qtdsnr",
          "timezone": "America/New_York",
          "shotTarget": {
            "doseG": 18,
            "ratioMax": 2.5,
            "ratioMin": 1.8,
            "timeMaxS": 32,
            "timeMinS": 25,
            "doseToleranceG": 1,
            "channelingBelowS": 18
          },
          "createdAt": "2026-11-28T06:47:14.206Z"
        },
        {
          "id": "cs_01m8gegwtymheznstjththm1k4",
          "code": "BAR-2",
          "name": "Blue Hill Roastery",
          "locationId": "loc_01m8gegw31ajv2pzk111qtdsnr",
          "timezone": "Europe/Vienna",
          "shotTarget": {
            "doseG": 18,
            "ratioMax": 2.5,
            "ratioMin": 1.8,
            "timeMaxS": 32,
            "timeMinS": 22,
            "doseToleranceG": 1,
            "channelingBelowS": 18
          },
          "createdAt": "2026-11-28T06:47:14.524Z"
        }
      ],
      "nextCursor": null
    }
  },
  'cafe.reconcilePos': {
    "input": {
      "siteId": "cs_01m8gehavehjet7wsk89q8nxdz",
      "businessDate": "2026-10-25"
    },
    "output": {
      "id": "rec_01m8gehb3n44gmshx504w0sxpd",
      "siteId": "cs_01m8gehavehjet7wsk89q8nxdz",
      "businessDate": "2026-10-25",
      "version": 1,
      "timezone": "Europe/Berlin",
      "dayStart": "2026-10-24T22:00:00.000Z",
      "dayEnd": "2026-10-25T23:00:00.000Z",
      "hours": 25,
      "shotsPulled": 3,
      "saleShotEquivalents": 4,
      "variance": -1,
      "machines": [
        {
          "machineId": "bm_01m8gehax15z52r2xmebb9ad9m",
          "shotsPulled": 3,
          "shareOfShots": 1
        }
      ],
      "createdAt": "2026-11-28T06:47:29.133Z"
    }
  },
  'cafe.registerMachine': {
    "input": {
      "siteId": "cs_01m8geh1903dwe696mvr7d7wsz",
      "name": "Linea",
      "code": "EM1",
      "kind": "espresso_machine",
      "brand": "La Marzocco",
      "deviceId": "LM-GS3"
    },
    "output": {
      "id": "bm_01m8geh1a1kq1tjmhbs675z7f1",
      "siteId": "cs_01m8geh1903dwe696mvr7d7wsz",
      "code": "EM1",
      "name": "Linea",
      "kind": "espresso_machine",
      "groupCount": 1,
      "brand": "La Marzocco",
      "model": null,
      "deviceId": "LM-GS3",
      "createdAt": "2026-11-28T06:47:19.104Z"
    }
  },
};
