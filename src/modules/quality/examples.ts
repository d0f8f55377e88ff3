import type { OperationExamples } from '../../rpc/examples.js';

/** A request and its answer for each of the module's operations, shown in the API reference (checked against the schemas by test/examples.test.ts). */
export const examples: OperationExamples = {
  'quality.cupping.createCuppingSession': {
    "input": {
      "sessionNumber": "CS-2611-2",
      "name": "Arrivals",
      "mode": "blind",
      "scheduledAt": "2026-11-26T09:00:00Z",
      "samples": [
        {
          "kind": "green_lot",
          "id": "gl_01m8gf0h2v25vvyn66w8k8ayqn"
        },
        {
          "kind": "roast_batch",
          "id": "rb_01m8gf0k04wr3rv46h3vgm0vh5"
        },
        {
          "kind": "roasted_lot",
          "id": "rl_01m8gf0kksjft03eca1bg4qbb4"
        }
      ]
    },
    "output": {
      "session": {
        "id": "cup_01m8gf0n7kw4dgpq19r6mf72w8",
        "sessionNumber": "CS-2611-2",
        "name": "Arrivals",
        "mode": "blind",
        "scheduledAt": "2026-11-26T09:00:00.000Z",
        "status": "open",
        "sampleCount": 5,
        "scoreCount": 0,
        "finalizedAt": null,
        "finalizedBy": null,
        "createdAt": "2026-11-28T06:55:50.885Z",
        "updatedAt": "2026-11-28T06:55:50.885Z"
      },
      "samples": [
        {
          "sessionSampleId": "css_01m8gf0n7khaqhyxm72zzc04tc",
          "blindCode": "ZAN",
          "identity": {
            "position": 1,
            "kind": "green_lot",
            "id": "gl_01m8gf0h2v25vvyn66w8k8ayqn",
            "code": "ETH-2611-1",
            "name": "Kochere Natural"
          }
        },
        {
          "sessionSampleId": "css_01m8gf0n7krk98g2kej8td4bhz",
          "blindCode": "WA7",
          "identity": {
            "position": 2,
            "kind": "roast_batch",
            "id": "rb_01m8gf0k04wr3rv46h3vgm0vh5",
            "code": "B-2611-1",
            "name": null
          }
        },
        {
          "sessionSampleId": "css_01m8gf0n7kmeeknwvfj5df75h4",
          "blindCode": "B8X",
          "identity": {
            "position": 3,
            "kind": "roasted_lot",
            "id": "rl_01m8gf0kksjft03eca1bg4qbb4",
            "code": "R-B-2611-1",
            "name": null
          }
        }
      ]
    }
  },
  'quality.cupping.finalizeCuppingSession': {
    "input": {
      "sessionId": "cup_01m8gf0w3v80kmm44mf7tj7cmw"
    },
    "output": {
      "session": {
        "id": "cup_01m8gf0w3v80kmm44mf7tj7cmw",
        "sessionNumber": "CS-2611-6",
        "name": "Arrivals",
        "mode": "blind",
        "scheduledAt": null,
        "status": "finalized",
        "sampleCount": 5,
        "scoreCount": 2,
        "finalizedAt": "2026-11-28T06:55:58.970Z",
        "finalizedBy": "key_01m8gf0f0bf48c36a6m7yddwvp",
        "createdAt": "2026-11-28T06:55:58.010Z",
        "updatedAt": "2026-11-28T06:55:58.970Z"
      },
      "coffees": [
        {
          "sessionSampleId": "css_01m8gf0w3vqra7f2kv6rtb39q6",
          "blindCode": "2FV",
          "identity": {
            "position": 3,
            "kind": "roast_batch",
            "id": "rb_01m8gf0vc1j4p4an9w28jf5f9w",
            "code": "B-2611-2",
            "name": null
          },
          "result": {
            "meanScore": null,
            "stddevScore": null,
            "minScore": null,
            "maxScore": null,
            "cupperCount": 0,
            "attributeMeans": null,
            "topDescriptors": []
          }
        },
        {
          "sessionSampleId": "css_01m8gf0w3vca4z0k3hehgxzxhb",
          "blindCode": "8NN",
          "identity": {
            "position": 2,
            "kind": "roasted_lot",
            "id": "rl_01m8gf0vk0w71z43h12g2a72qy",
            "code": "R-B-2611-2",
            "name": null
          },
          "result": {
            "meanScore": "73.00",
            "stddevScore": null,
            "minScore": "73.00",
            "maxScore": "73.00",
            "cupperCount": 1,
            "attributeMeans": {
              "body": "7.00",
              "flavor": "7.00",
              "acidity": "7.00",
              "balance": "7.00",
              "overall": "7.00",
              "cleanCup": "8.00",
              "sweetness": "8.00",
              "aftertaste": "7.00",
              "uniformity": "8.00",
              "fragranceAroma": "7.00"
            },
            "topDescriptors": []
          }
        },
        {
          "sessionSampleId": "css_01m8gf0w3vwzte10k3ftvhcbr6",
          "blindCode": "DR9",
          "identity": {
            "position": 4,
            "kind": "outside",
            "id": null,
            "code": null,
            "name": "Rival Roasters Sidamo"
          },
          "result": {
            "meanScore": null,
            "stddevScore": null,
            "minScore": null,
            "maxScore": null,
            "cupperCount": 0,
            "attributeMeans": null,
            "topDescriptors": []
          }
        }
      ]
    }
  },
  'quality.cupping.getCuppingTable': {
    "input": {
      "sessionId": "cup_01m8gf0w3v80kmm44mf7tj7cmw",
      "cupperName": "Ana Ruiz"
    },
    "output": {
      "session": {
        "id": "cup_01m8gf0w3v80kmm44mf7tj7cmw",
        "sessionNumber": "CS-2611-6",
        "name": "Arrivals",
        "mode": "blind",
        "scheduledAt": null,
        "status": "open",
        "sampleCount": 5,
        "scoreCount": 2,
        "finalizedAt": null,
        "finalizedBy": null,
        "createdAt": "2026-11-28T06:55:58.010Z",
        "updatedAt": "2026-11-28T06:55:58.010Z"
      },
      "identitiesHidden": true,
      "otherCuppersHidden": false,
      "coffees": [
        {
          "sessionSampleId": "css_01m8gf0w3vqra7f2kv6rtb39q6",
          "blindCode": "2FV",
          "identity": null,
          "scoreCount": 0,
          "scores": [],
          "result": null
        },
        {
          "sessionSampleId": "css_01m8gf0w3vca4z0k3hehgxzxhb",
          "blindCode": "8NN",
          "identity": null,
          "scoreCount": 1,
          "scores": [
            {
              "id": "csc_01m8gf0wptkaxbg80x1nxqbrx2",
              "sessionId": "cup_01m8gf0w3v80kmm44mf7tj7cmw",
              "sessionSampleId": "css_01m8gf0w3vca4z0k3hehgxzxhb",
              "blindCode": "8NN",
              "cupperName": "Ben Okafor",
              "scores": {
                "fragranceAroma": 7,
                "flavor": 7,
                "aftertaste": 7,
                "acidity": 7,
                "body": 7,
                "balance": 7,
                "uniformity": 8,
                "cleanCup": 8,
                "sweetness": 8,
                "overall": 7
              },
              "totalScore": 73,
              "defectsPenalty": 0,
              "finalScore": 73,
              "descriptors": [],
              "notes": "Ben: a touch of bergamot",
              "revision": 1,
              "credentialId": "key_01m8gf0f0bf48c36a6m7yddwvp",
              "createdAt": "2026-11-28T06:55:58.651Z",
              "updatedAt": "2026-11-28T06:55:58.651Z"
            }
          ],
          "result": null
        },
        {
          "sessionSampleId": "css_01m8gf0w3vwzte10k3ftvhcbr6",
          "blindCode": "DR9",
          "identity": null,
          "scoreCount": 0,
          "scores": [],
          "result": null
        }
      ]
    }
  },
  'quality.cupping.listCuppingSessions': {
    "input": {
      "filter": {
        "q": "CUP-2611-14"
      }
    },
    "output": {
      "items": [
        {
          "id": "cup_01m8gf13gykrk1kk0gbt5h6zez",
          "sessionNumber": "CUP-2611-14-C",
          "name": "Arrivals",
          "mode": "blind",
          "scheduledAt": "2030-01-03T08:00:00.000Z",
          "status": "finalized",
          "sampleCount": 1,
          "scoreCount": 0,
          "finalizedAt": "2026-11-28T06:56:05.809Z",
          "finalizedBy": "key_01m8gf0f0bf48c36a6m7yddwvp",
          "createdAt": "2026-11-28T06:56:05.661Z",
          "updatedAt": "2026-11-28T06:56:05.809Z"
        },
        {
          "id": "cup_01m8gf13e220p0hwjdw41qrq7q",
          "sessionNumber": "CUP-2611-14-B",
          "name": "Arrivals",
          "mode": "blind",
          "scheduledAt": "2030-01-02T08:00:00.000Z",
          "status": "open",
          "sampleCount": 1,
          "scoreCount": 0,
          "finalizedAt": null,
          "finalizedBy": null,
          "createdAt": "2026-11-28T06:56:05.569Z",
          "updatedAt": "2026-11-28T06:56:05.569Z"
        },
        {
          "id": "cup_01m8gf13b2q0yx6h1y2tm6s6j0",
          "sessionNumber": "CUP-2611-14-A",
          "name": "Arrivals",
          "mode": "open",
          "scheduledAt": "2030-01-01T08:00:00.000Z",
          "status": "open",
          "sampleCount": 1,
          "scoreCount": 0,
          "finalizedAt": null,
          "finalizedBy": null,
          "createdAt": "2026-11-28T06:56:05.474Z",
          "updatedAt": "2026-11-28T06:56:05.474Z"
        }
      ],
      "nextCursor": null
    }
  },
  'quality.cupping.submitCuppingScore': {
    "input": {
      "scores": {
        "fragranceAroma": 7.5,
        "flavor": 7.5,
        "aftertaste": 7.5,
        "acidity": 7.5,
        "body": 7.5,
        "balance": 7.5,
        "uniformity": 8,
        "cleanCup": 8,
        "sweetness": 8,
        "overall": 7.5
      },
      "sessionSampleId": "css_01m8gf0y6wjqzv3gvkbyvcn6dy",
      "cupperName": "Ben Okafor",
      "defectsPenalty": 2,
      "descriptors": [
        "citrus ",
        "Cocoa",
        "CITRUS"
      ]
    },
    "output": {
      "id": "csc_01m8gf0ycwzxsb41v445m8vm02",
      "sessionId": "cup_01m8gf0y6w6dsn28987xtemw9m",
      "sessionSampleId": "css_01m8gf0y6wjqzv3gvkbyvcn6dy",
      "blindCode": "GGX",
      "cupperName": "Ben Okafor",
      "scores": {
        "fragranceAroma": 7.5,
        "flavor": 7.5,
        "aftertaste": 7.5,
        "acidity": 7.5,
        "body": 7.5,
        "balance": 7.5,
        "uniformity": 8,
        "cleanCup": 8,
        "sweetness": 8,
        "overall": 7.5
      },
      "totalScore": 76.5,
      "defectsPenalty": 2,
      "finalScore": 74.5,
      "descriptors": [
        "citrus",
        "Cocoa",
        "CITRUS"
      ],
      "notes": null,
      "revision": 1,
      "credentialId": "key_01m8gf0f0bf48c36a6m7yddwvp",
      "createdAt": "2026-11-28T06:56:00.390Z",
      "updatedAt": "2026-11-28T06:56:00.390Z",
      "replaced": false
    }
  },
  'quality.grading.listGradings': {
    "input": {
      "filter": {
        "greenLotId": "gl_01m8gf18nx2998wjmraw9qfp93"
      }
    },
    "output": {
      "items": [
        {
          "id": "grd_01m8gf190z1kbbwa8myhsb0f2m",
          "greenLotId": "gl_01m8gf18nx2998wjmraw9qfp93",
          "sampleId": null,
          "standard": "custom",
          "moisturePct": null,
          "waterActivity": null,
          "screenSizeAvg": null,
          "densityGPerL": null,
          "defectsPrimary": null,
          "defectsSecondary": null,
          "screenDistribution": null,
          "defectCounts": null,
          "notes": null,
          "result": "not_judged",
          "grade": null,
          "checks": [],
          "reasons": [],
          "quarantinedLot": false,
          "credentialId": "key_01m8gf0sn51m7j5ykprqp40q8r",
          "createdAt": "2026-11-28T06:56:11.246Z"
        },
        {
          "id": "grd_01m8gf18vw967vqgd9xqb8t6v6",
          "greenLotId": "gl_01m8gf18nx2998wjmraw9qfp93",
          "sampleId": null,
          "standard": "sca",
          "moisturePct": "11.20",
          "waterActivity": "0.580",
          "screenSizeAvg": null,
          "densityGPerL": null,
          "defectsPrimary": 1,
          "defectsSecondary": 5,
          "screenDistribution": null,
          "defectCounts": null,
          "notes": null,
          "result": "fail",
          "grade": "below specialty",
          "checks": [
            {
              "rule": "sca.category1_defects",
              "limit": "0",
              "passed": false,
              "message": "1 category-1 full defects per 350 g; SCA specialty grade allows 0",
              "measured": "1"
            },
            {
              "rule": "sca.category2_defects",
              "limit": "≤ 5",
              "passed": true,
              "message": "5 category-2 full defects per 350 g; SCA specialty grade allows at most 5",
              "measured": "5"
            },
            {
              "rule": "sca.moisture",
              "limit": "10–12 %",
              "passed": true,
              "message": "moisture 11.2 %; SCA specialty grade requires 10–12 %",
              "measured": "11.2"
            }
          ],
          "reasons": [
            "1 category-1 full defects per 350 g; SCA specialty grade allows 0"
          ],
          "quarantinedLot": true,
          "credentialId": "key_01m8gf0sn51m7j5ykprqp40q8r",
          "createdAt": "2026-11-28T06:56:11.112Z"
        },
        {
          "id": "grd_01m8gf18q3m6pbt0vvkjs4kq0j",
          "greenLotId": "gl_01m8gf18nx2998wjmraw9qfp93",
          "sampleId": null,
          "standard": "sca",
          "moisturePct": "11.20",
          "waterActivity": "0.580",
          "screenSizeAvg": null,
          "densityGPerL": null,
          "defectsPrimary": 0,
          "defectsSecondary": 5,
          "screenDistribution": null,
          "defectCounts": null,
          "notes": null,
          "result": "pass",
          "grade": "specialty",
          "checks": [
            {
              "rule": "sca.category1_defects",
              "limit": "0",
              "passed": true,
              "message": "0 category-1 full defects per 350 g; SCA specialty grade allows 0",
              "measured": "0"
            },
            {
              "rule": "sca.category2_defects",
              "limit": "≤ 5",
              "passed": true,
              "message": "5 category-2 full defects per 350 g; SCA specialty grade allows at most 5",
              "measured": "5"
            },
            {
              "rule": "sca.moisture",
              "limit": "10–12 %",
              "passed": true,
              "message": "moisture 11.2 %; SCA specialty grade requires 10–12 %",
              "measured": "11.2"
            }
          ],
          "reasons": [],
          "quarantinedLot": false,
          "credentialId": "key_01m8gf0sn51m7j5ykprqp40q8r",
          "createdAt": "2026-11-28T06:56:10.977Z"
        }
      ],
      "nextCursor": null
    }
  },
  'quality.grading.recordGrading': {
    "input": {
      "greenLotId": "gl_01m8gf0ttwth5qhfw1cnj63ab1",
      "standard": "sca",
      "defectsPrimary": 0,
      "defectsSecondary": 5,
      "moisturePct": 11.2,
      "waterActivity": 0.58,
      "screenSizeAvg": 17.5,
      "densityGPerL": 720,
      "screenDistribution": {
        "16": 25,
        "17": 35,
        "18": 40
      },
      "defectCounts": {
        "broken": 5
      }
    },
    "output": {
      "grading": {
        "id": "grd_01m8gf0vdqb57yk0ehnc1s8ff2",
        "greenLotId": "gl_01m8gf0ttwth5qhfw1cnj63ab1",
        "sampleId": null,
        "standard": "sca",
        "moisturePct": "11.20",
        "waterActivity": "0.580",
        "screenSizeAvg": "17.50",
        "densityGPerL": "720.00",
        "defectsPrimary": 0,
        "defectsSecondary": 5,
        "screenDistribution": {
          "16": 25,
          "17": 35,
          "18": 40
        },
        "defectCounts": {
          "broken": 5
        },
        "notes": null,
        "result": "pass",
        "grade": "specialty",
        "checks": [
          {
            "rule": "sca.category1_defects",
            "limit": "0",
            "passed": true,
            "message": "0 category-1 full defects per 350 g; SCA specialty grade allows 0",
            "measured": "0"
          },
          {
            "rule": "sca.category2_defects",
            "limit": "≤ 5",
            "passed": true,
            "message": "5 category-2 full defects per 350 g; SCA specialty grade allows at most 5",
            "measured": "5"
          },
          {
            "rule": "sca.moisture",
            "limit": "10–12 %",
            "passed": true,
            "message": "moisture 11.2 %; SCA specialty grade requires 10–12 %",
            "measured": "11.2"
          }
        ],
        "reasons": [],
        "quarantinedLot": false,
        "credentialId": "key_01m8gf0sn51m7j5ykprqp40q8r",
        "createdAt": "2026-11-28T06:55:57.322Z"
      },
      "lot": {
        "id": "gl_01m8gf0ttwth5qhfw1cnj63ab1",
        "lotCode": "L-2611-1",
        "name": "Lot 1",
        "supplierRef": null,
        "producerId": null,
        "partnerId": null,
        "state": "green",
        "varieties": [],
        "processMethod": null,
        "harvestYear": null,
        "certifications": [],
        "bagCount": null,
        "bagWeightKg": null,
        "unitCost": null,
        "currency": null,
        "minWeightKg": null,
        "notes": null,
        "quarantined": false,
        "quarantineReason": null,
        "quarantine": null,
        "onHandKg": "100.000",
        "reservedKg": "0.000",
        "availableKg": "100.000",
        "openingKg": "100.000",
        "landedCost": null,
        "createdAt": "2026-11-28T06:55:56.750Z",
        "updatedAt": "2026-11-28T06:55:56.750Z"
      }
    }
  },
  'quality.grading.releaseQuarantine': {
    "input": {
      "greenLotId": "gl_01m8gf0zmab6fhsfhp06hg8vmz",
      "reason": "Regraded by the importer: 4 category-2 defects"
    },
    "output": {
      "id": "gl_01m8gf0zmab6fhsfhp06hg8vmz",
      "lotCode": "L-2611-9",
      "name": "Lot 9",
      "supplierRef": null,
      "producerId": null,
      "partnerId": null,
      "state": "green",
      "varieties": [],
      "processMethod": null,
      "harvestYear": null,
      "certifications": [],
      "bagCount": null,
      "bagWeightKg": null,
      "unitCost": null,
      "currency": null,
      "minWeightKg": null,
      "notes": null,
      "quarantined": false,
      "quarantineReason": null,
      "quarantine": {
        "reason": "Grading grd_01m8gf0zybx8xf9k1p1283njaf (sca) failed: 9 category-2 full defects per 350 g; SCA specialty grade allows at most 5",
        "quarantinedAt": "2026-11-28T06:56:01.975Z",
        "quarantinedBy": "key_01m8gf0sn51m7j5ykprqp40q8r",
        "releasedAt": "2026-11-28T06:56:02.710Z",
        "releasedBy": "key_01m8gf0sn51m7j5ykprqp40q8r",
        "releaseReason": "Regraded by the importer: 4 category-2 defects"
      },
      "onHandKg": "100.000",
      "reservedKg": "0.000",
      "availableKg": "100.000",
      "openingKg": "100.000",
      "landedCost": null,
      "createdAt": "2026-11-28T06:56:01.673Z",
      "updatedAt": "2026-11-28T06:56:02.710Z"
    }
  },
};
