import type { OperationExamples } from '../../rpc/examples.js';

/** A request and its answer for each of the module's operations, shown in the API reference (checked against the schemas by test/examples.test.ts). */
export const examples: OperationExamples = {
  'inventory.blend.createBlend': {
    "input": {
      "name": "House espresso",
      "code": "HOUSE-2",
      "blendType": "post_roast",
      "components": [
        {
          "greenLotId": "gl_01m8gepzq7xg2dkx1t7yfpeppw",
          "ratioPct": "33.33"
        },
        {
          "greenLotId": "gl_01m8geq00jd6cessf61dcpvhwe",
          "ratioPct": "33.33"
        },
        {
          "greenLotId": "gl_01m8geq0beh1m7enca08ewv5vx",
          "ratioPct": "33.34"
        }
      ],
      "isDecaf": true
    },
    "output": {
      "id": "bln_01m8geq0m4e2sncdb59n25pqeh",
      "code": "HOUSE-2",
      "name": "House espresso",
      "blendType": "post_roast",
      "roastLevel": null,
      "isDecaf": true,
      "targetWeightLossPct": null,
      "components": [
        {
          "id": "blc_01m8geq0m6azr0g1v6yd9mas4j",
          "greenLotId": "gl_01m8gepzq7xg2dkx1t7yfpeppw",
          "lotCode": "BL-ETH",
          "ratioPct": "33.33"
        },
        {
          "id": "blc_01m8geq0m62757yhd8gb12tyrn",
          "greenLotId": "gl_01m8geq00jd6cessf61dcpvhwe",
          "lotCode": "BL-BRA",
          "ratioPct": "33.33"
        },
        {
          "id": "blc_01m8geq0m68qrhbdtq90gmegk0",
          "greenLotId": "gl_01m8geq0beh1m7enca08ewv5vx",
          "lotCode": "BL-COL",
          "ratioPct": "33.34"
        }
      ],
      "createdAt": "2026-11-28T06:50:35.011Z"
    }
  },
  'inventory.blend.getBlend': {
    "input": {
      "id": "bln_01m8geq0hj1vmkbsrsdnkx47y6"
    },
    "output": {
      "id": "bln_01m8geq0hj1vmkbsrsdnkx47y6",
      "code": "HOUSE-1",
      "name": "House espresso",
      "blendType": "pre_roast",
      "roastLevel": "medium",
      "isDecaf": false,
      "targetWeightLossPct": "15.00",
      "components": [
        {
          "id": "blc_01m8geq0j88dpqk9pzqfhssr91",
          "greenLotId": "gl_01m8gepzq7xg2dkx1t7yfpeppw",
          "lotCode": "BL-ETH",
          "ratioPct": "60.00"
        },
        {
          "id": "blc_01m8geq0j8a2mbvkvmcwqf9b68",
          "greenLotId": "gl_01m8geq00jd6cessf61dcpvhwe",
          "lotCode": "BL-BRA",
          "ratioPct": "40.00"
        }
      ],
      "createdAt": "2026-11-28T06:50:34.906Z"
    }
  },
  'inventory.blend.listBlends': {
    "input": {
      "filter": {}
    },
    "output": {
      "items": [
        {
          "id": "bln_01m8geq1n40vqgrmzyhywvvsge",
          "code": "MID",
          "name": "Midnight",
          "blendType": "pre_roast",
          "roastLevel": "dark",
          "isDecaf": false,
          "targetWeightLossPct": "15.00",
          "components": [
            {
              "id": "blc_01m8geq1n5y9rm07dhk1b62fhx",
              "greenLotId": "gl_01m8geq1gdg0dmcbtg7zv280z3",
              "lotCode": "L-2611-4",
              "ratioPct": "100.00"
            }
          ],
          "createdAt": "2026-11-28T06:50:36.041Z"
        },
        {
          "id": "bln_01m8geq1r04sdpn4csw3wtjt9k",
          "code": "SUN",
          "name": "Sunrise",
          "blendType": "post_roast",
          "roastLevel": "light",
          "isDecaf": false,
          "targetWeightLossPct": null,
          "components": [
            {
              "id": "blc_01m8geq1r1v5c6xta81pypmms1",
              "greenLotId": "gl_01m8geq1gdg0dmcbtg7zv280z3",
              "lotCode": "L-2611-4",
              "ratioPct": "100.00"
            }
          ],
          "createdAt": "2026-11-28T06:50:36.145Z"
        },
        {
          "id": "bln_01m8geq1svkb76p7yhxtnxqrnf",
          "code": "DECAF",
          "name": "Swiss Water decaf",
          "blendType": "pre_roast",
          "roastLevel": null,
          "isDecaf": true,
          "targetWeightLossPct": "15.00",
          "components": [
            {
              "id": "blc_01m8geq1t0y973b4g7zg6x9z4z",
              "greenLotId": "gl_01m8geq1gdg0dmcbtg7zv280z3",
              "lotCode": "L-2611-4",
              "ratioPct": "100.00"
            }
          ],
          "createdAt": "2026-11-28T06:50:36.203Z"
        }
      ],
      "nextCursor": null
    }
  },
  'inventory.blend.validateBlendAvailability': {
    "input": {
      "blendId": "bln_01m8geq28rs67sc1azrpzbkcmx",
      "requestedKg": "100"
    },
    "output": {
      "blendId": "bln_01m8geq28rs67sc1azrpzbkcmx",
      "blendType": "pre_roast",
      "requestedKg": "100.000",
      "targetWeightLossPct": "15.00",
      "grossedUpForRoastLoss": true,
      "available": true,
      "totalNeededKg": "117.648",
      "totalShortKg": "0.000",
      "components": [
        {
          "greenLotId": "gl_01m8gepzq7xg2dkx1t7yfpeppw",
          "lotCode": "BL-ETH",
          "ratioPct": "60.00",
          "quarantined": false,
          "neededKg": "70.589",
          "availableKg": "100.000",
          "shortKg": "0.000"
        },
        {
          "greenLotId": "gl_01m8geq00jd6cessf61dcpvhwe",
          "lotCode": "BL-BRA",
          "ratioPct": "40.00",
          "quarantined": false,
          "neededKg": "47.059",
          "availableKg": "100.000",
          "shortKg": "0.000"
        }
      ]
    }
  },
  'inventory.green.adjustGreenLotQuantity': {
    "input": {
      "id": "gl_01m8ger6qcfdy7n62h2e5xj73d",
      "locationId": "loc_01m8geqztxms7kcdncc2cv7ptv",
      "deltaKg": "-2.5",
      "reason": "recount",
      "comment": "counted short"
    },
    "output": {
      "lot": {
        "id": "gl_01m8ger6qcfdy7n62h2e5xj73d",
        "lotCode": "L-2611-5",
        "name": "Lot 5",
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
        "onHandKg": "-2.500",
        "reservedKg": "0.000",
        "availableKg": "-2.500",
        "openingKg": "10.000",
        "landedCost": null,
        "createdAt": "2026-11-28T06:51:14.009Z",
        "updatedAt": "2026-11-28T06:51:14.756Z",
        "balances": [
          {
            "locationId": "loc_01m8geqztxms7kcdncc2cv7ptv",
            "locationCode": "WH-HAFEN",
            "locationName": "Hafen green store",
            "onHandKg": "-2.500",
            "updatedAt": "2026-11-28T06:51:14.756Z"
          }
        ]
      },
      "transactions": [
        {
          "id": "glt_01m8ger7e78431naqwm9vvppwt",
          "greenLotId": "gl_01m8ger6qcfdy7n62h2e5xj73d",
          "seq": 3,
          "kind": "recount",
          "locationId": "loc_01m8geqztxms7kcdncc2cv7ptv",
          "deltaKg": "-2.500",
          "reservedDeltaKg": "0.000",
          "groupId": null,
          "credentialId": "key_01m8geqwdfrjp8rh0w4a34vze1",
          "comment": "counted short",
          "createdAt": "2026-11-28T06:51:14.756Z"
        }
      ]
    }
  },
  'inventory.green.getGreenLot': {
    "input": {
      "id": "gl_01m8ger5j37c0zh7f5zrpyc105"
    },
    "output": {
      "id": "gl_01m8ger5j37c0zh7f5zrpyc105",
      "lotCode": "L-2611-3",
      "name": "Lot 3",
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
      "quarantined": true,
      "quarantineReason": "moisture 13.5%",
      "quarantine": null,
      "onHandKg": "40.000",
      "reservedKg": "0.000",
      "availableKg": "40.000",
      "openingKg": "40.000",
      "landedCost": null,
      "createdAt": "2026-11-28T06:51:12.833Z",
      "updatedAt": "2026-11-28T06:51:12.833Z",
      "balances": [
        {
          "locationId": "loc_01m8geqztxms7kcdncc2cv7ptv",
          "locationCode": "WH-HAFEN",
          "locationName": "Hafen green store",
          "onHandKg": "40.000",
          "updatedAt": "2026-11-28T06:51:12.833Z"
        }
      ],
      "costComponents": [],
      "cupping": null
    }
  },
  'inventory.green.getGreenLotLandedCost': {
    "input": {
      "greenLotId": "gl_01m8gerk84n0x8gh8t0j5vwnmy"
    },
    "output": {
      "greenLotId": "gl_01m8gerk84n0x8gh8t0j5vwnmy",
      "version": 1,
      "currency": "USD",
      "buckets": {
        "price": "1037.0200",
        "freight": "215.5000",
        "duty": "0.0000",
        "carry": "3.1500",
        "other": "0.0000"
      },
      "total": "1255.6700",
      "perKg": "4.1856",
      "weightBasisKg": "300.000",
      "updatedAt": "2026-11-28T06:51:26.987Z",
      "components": [
        {
          "id": "gcc_01m8gerkd35m2je6rgeth8rr56",
          "bucket": "price",
          "amount": "1000.0000",
          "currency": "USD",
          "basis": "total",
          "description": "contract price",
          "createdAt": "2026-11-28T06:51:26.987Z"
        },
        {
          "id": "gcc_01m8gerkd3nz3xpdy0fvwwf201",
          "bucket": "price",
          "amount": "0.1234",
          "currency": "USD",
          "basis": "per_kg",
          "description": "differential",
          "createdAt": "2026-11-28T06:51:26.987Z"
        },
        {
          "id": "gcc_01m8gerkd3q9hek0crhyyea5et",
          "bucket": "freight",
          "amount": "215.5000",
          "currency": "USD",
          "basis": "total",
          "description": null,
          "createdAt": "2026-11-28T06:51:26.987Z"
        }
      ]
    }
  },
  'inventory.green.importGreenLot': {
    "input": {
      "name": "Yirgacheffe Konga",
      "lotCode": "ETH-2024-001",
      "weightKg": 1200.5,
      "supplierRef": "PO-77",
      "producerId": "pro_01jq6c4f8h2k5m7p9r1t3v5x7z",
      "partnerId": "prt_01jq6c9d3f5h7k9m1p3r5t7v9x",
      "state": "green",
      "varieties": [
        "Heirloom"
      ],
      "processMethod": "washed",
      "harvestYear": 2024,
      "certifications": [
        "organic"
      ],
      "bagCount": 20,
      "bagWeightKg": "60.025",
      "unitCost": "7.2500",
      "currency": "USD",
      "minWeightKg": "100",
      "locationId": "loc_01m8geqztxms7kcdncc2cv7ptv",
      "notes": "arrived dry"
    },
    "output": {
      "lot": {
        "id": "gl_01m8ger1v2p3b5b9x919mncttj",
        "lotCode": "ETH-2024-001",
        "name": "Yirgacheffe Konga",
        "supplierRef": "PO-77",
        "producerId": "pro_01jq6c4f8h2k5m7p9r1t3v5x7z",
        "partnerId": "prt_01jq6c9d3f5h7k9m1p3r5t7v9x",
        "state": "green",
        "varieties": [
          "Heirloom"
        ],
        "processMethod": "washed",
        "harvestYear": 2024,
        "certifications": [
          "organic"
        ],
        "bagCount": 20,
        "bagWeightKg": "60.025",
        "unitCost": "7.2500",
        "currency": "USD",
        "minWeightKg": "100.000",
        "notes": "arrived dry",
        "quarantined": false,
        "quarantineReason": null,
        "quarantine": null,
        "onHandKg": "1200.500",
        "reservedKg": "0.000",
        "availableKg": "1200.500",
        "openingKg": "1200.500",
        "landedCost": null,
        "createdAt": "2026-11-28T06:51:08.956Z",
        "updatedAt": "2026-11-28T06:51:08.956Z",
        "balances": [
          {
            "locationId": "loc_01m8geqztxms7kcdncc2cv7ptv",
            "locationCode": "WH-HAFEN",
            "locationName": "Hafen green store",
            "onHandKg": "1200.500",
            "updatedAt": "2026-11-28T06:51:08.956Z"
          }
        ]
      },
      "transactions": [
        {
          "id": "glt_01m8ger1x93t7v2q8q6zejr2xa",
          "greenLotId": "gl_01m8ger1v2p3b5b9x919mncttj",
          "seq": 1,
          "kind": "receive",
          "locationId": "loc_01m8geqztxms7kcdncc2cv7ptv",
          "deltaKg": "1200.500",
          "reservedDeltaKg": "0.000",
          "groupId": null,
          "credentialId": "key_01m8geqwdfrjp8rh0w4a34vze1",
          "comment": "opening weight",
          "createdAt": "2026-11-28T06:51:08.956Z"
        }
      ]
    }
  },
  'inventory.green.listGreenLotBalances': {
    "input": {
      "greenLotId": "gl_01m8ger2n67sy2ms2te2rfwht0"
    },
    "output": {
      "items": [
        {
          "locationId": null,
          "locationCode": null,
          "locationName": null,
          "onHandKg": "5.000",
          "updatedAt": "2026-11-28T06:51:09.836Z"
        }
      ],
      "nextCursor": null
    }
  },
  'inventory.green.listGreenLotTransactions': {
    "input": {
      "greenLotId": "gl_01m8gerpg2vxadgvm5reewwvn2",
      "page": {
        "limit": 3
      }
    },
    "output": {
      "items": [
        {
          "id": "glt_01m8gerpg4y4q9v3de7r1gt8kz",
          "greenLotId": "gl_01m8gerpg2vxadgvm5reewwvn2",
          "seq": 1,
          "kind": "receive",
          "locationId": "loc_01m8geqztxms7kcdncc2cv7ptv",
          "deltaKg": "10.000",
          "reservedDeltaKg": "0.000",
          "groupId": null,
          "credentialId": "key_01m8geqwdfrjp8rh0w4a34vze1",
          "comment": "opening weight",
          "createdAt": "2026-11-28T06:51:30.177Z"
        },
        {
          "id": "glt_01m8gerpgj42kwzx5ab8vb3frf",
          "greenLotId": "gl_01m8gerpg2vxadgvm5reewwvn2",
          "seq": 2,
          "kind": "adjust",
          "locationId": "loc_01m8geqztxms7kcdncc2cv7ptv",
          "deltaKg": "-1.000",
          "reservedDeltaKg": "0.000",
          "groupId": null,
          "credentialId": "key_01m8geqwdfrjp8rh0w4a34vze1",
          "comment": "step 1",
          "createdAt": "2026-11-28T06:51:30.192Z"
        },
        {
          "id": "glt_01m8gerphva6xpxp8x6e4y0jxn",
          "greenLotId": "gl_01m8gerpg2vxadgvm5reewwvn2",
          "seq": 3,
          "kind": "adjust",
          "locationId": "loc_01m8geqztxms7kcdncc2cv7ptv",
          "deltaKg": "-2.000",
          "reservedDeltaKg": "0.000",
          "groupId": null,
          "credentialId": "key_01m8geqwdfrjp8rh0w4a34vze1",
          "comment": "step 2",
          "createdAt": "2026-11-28T06:51:30.232Z"
        }
      ],
      "nextCursor": "WyJncmVlbl9sb3RfdHJhbnNhY3Rpb25zIiwzXQ"
    }
  },
  'inventory.green.listGreenLots': {
    "input": {
      "filter": {}
    },
    "output": {
      "items": [
        {
          "id": "gl_01m8gerna5hdq8x7c8vswx0nk8",
          "lotCode": "KEN-AA-01",
          "name": "Kenya AA",
          "supplierRef": null,
          "producerId": "pro_01jq6d2g4j6l8n0q2s4u6w8y0a",
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
          "minWeightKg": "20.000",
          "notes": null,
          "quarantined": false,
          "quarantineReason": null,
          "quarantine": null,
          "onHandKg": "10.000",
          "reservedKg": "0.000",
          "availableKg": "10.000",
          "openingKg": "10.000",
          "landedCost": null,
          "createdAt": "2026-11-28T06:51:28.957Z",
          "updatedAt": "2026-11-28T06:51:28.957Z"
        },
        {
          "id": "gl_01m8gernct9rqjv19qkrtyahw9",
          "lotCode": "COL-01",
          "name": "Huila 50%",
          "supplierRef": null,
          "producerId": null,
          "partnerId": "prt_01jq6d5h7k9m1p3r5t7v9x1z3b",
          "state": "parchment",
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
          "quarantined": true,
          "quarantineReason": null,
          "quarantine": null,
          "onHandKg": "10.000",
          "reservedKg": "0.000",
          "availableKg": "10.000",
          "openingKg": "10.000",
          "landedCost": null,
          "createdAt": "2026-11-28T06:51:29.049Z",
          "updatedAt": "2026-11-28T06:51:29.049Z"
        },
        {
          "id": "gl_01m8gerng7mcxtv58px18rncmf",
          "lotCode": "BRA-01",
          "name": "Cerrado",
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
          "onHandKg": "0.000",
          "reservedKg": "0.000",
          "availableKg": "0.000",
          "openingKg": "10.000",
          "landedCost": null,
          "createdAt": "2026-11-28T06:51:29.158Z",
          "updatedAt": "2026-11-28T06:51:29.309Z"
        }
      ],
      "nextCursor": null
    }
  },
  'inventory.green.mergeGreenLots': {
    "input": {
      "targetId": "gl_01m8gerd1dddg2tafr4mjedmny",
      "sourceIds": [
        "gl_01m8gerd69pt73yc5w4jjmcxq9",
        "gl_01m8gerdcqpx6k0m4e580jskxe"
      ],
      "comment": "consolidate"
    },
    "output": {
      "target": {
        "id": "gl_01m8gerd1dddg2tafr4mjedmny",
        "lotCode": "L-2611-15",
        "name": "Lot 15",
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
        "onHandKg": "37.000",
        "reservedKg": "0.000",
        "availableKg": "37.000",
        "openingKg": "10.000",
        "landedCost": null,
        "createdAt": "2026-11-28T06:51:20.492Z",
        "updatedAt": "2026-11-28T06:51:21.001Z",
        "balances": [
          {
            "locationId": null,
            "locationCode": null,
            "locationName": null,
            "onHandKg": "7.000",
            "updatedAt": "2026-11-28T06:51:21.001Z"
          },
          {
            "locationId": "loc_01m8geqztxms7kcdncc2cv7ptv",
            "locationCode": "WH-HAFEN",
            "locationName": "Hafen green store",
            "onHandKg": "25.000",
            "updatedAt": "2026-11-28T06:51:21.001Z"
          },
          {
            "locationId": "loc_01m8ger193znstp490d44h0v74",
            "locationCode": "ROASTERY",
            "locationName": "Roastery floor",
            "onHandKg": "5.000",
            "updatedAt": "2026-11-28T06:51:21.001Z"
          }
        ]
      },
      "sources": [
        {
          "id": "gl_01m8gerd69pt73yc5w4jjmcxq9",
          "lotCode": "L-2611-16",
          "name": "Lot 16",
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
          "onHandKg": "0.000",
          "reservedKg": "0.000",
          "availableKg": "0.000",
          "openingKg": "20.000",
          "landedCost": null,
          "createdAt": "2026-11-28T06:51:20.602Z",
          "updatedAt": "2026-11-28T06:51:21.001Z",
          "balances": []
        },
        {
          "id": "gl_01m8gerdcqpx6k0m4e580jskxe",
          "lotCode": "L-2611-17",
          "name": "Lot 17",
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
          "onHandKg": "0.000",
          "reservedKg": "0.000",
          "availableKg": "0.000",
          "openingKg": "7.000",
          "landedCost": null,
          "createdAt": "2026-11-28T06:51:20.854Z",
          "updatedAt": "2026-11-28T06:51:21.001Z",
          "balances": []
        }
      ],
      "groupId": "grp_01m8gerdhbc66nqyv8at2mf9z3",
      "transactions": [
        {
          "id": "glt_01m8gerdjsya1d07e2efb2csep",
          "greenLotId": "gl_01m8gerd69pt73yc5w4jjmcxq9",
          "seq": 4,
          "kind": "merge_out",
          "locationId": "loc_01m8geqztxms7kcdncc2cv7ptv",
          "deltaKg": "-15.000",
          "reservedDeltaKg": "0.000",
          "groupId": "grp_01m8gerdhbc66nqyv8at2mf9z3",
          "credentialId": "key_01m8geqwdfrjp8rh0w4a34vze1",
          "comment": "consolidate",
          "createdAt": "2026-11-28T06:51:21.001Z"
        },
        {
          "id": "glt_01m8gerdjsxwq99hw4155bb3ja",
          "greenLotId": "gl_01m8gerd1dddg2tafr4mjedmny",
          "seq": 2,
          "kind": "merge_in",
          "locationId": "loc_01m8geqztxms7kcdncc2cv7ptv",
          "deltaKg": "15.000",
          "reservedDeltaKg": "0.000",
          "groupId": "grp_01m8gerdhbc66nqyv8at2mf9z3",
          "credentialId": "key_01m8geqwdfrjp8rh0w4a34vze1",
          "comment": "consolidate",
          "createdAt": "2026-11-28T06:51:21.001Z"
        },
        {
          "id": "glt_01m8gerdjsty4mzeb3kzp8nac2",
          "greenLotId": "gl_01m8gerd69pt73yc5w4jjmcxq9",
          "seq": 5,
          "kind": "merge_out",
          "locationId": "loc_01m8ger193znstp490d44h0v74",
          "deltaKg": "-5.000",
          "reservedDeltaKg": "0.000",
          "groupId": "grp_01m8gerdhbc66nqyv8at2mf9z3",
          "credentialId": "key_01m8geqwdfrjp8rh0w4a34vze1",
          "comment": "consolidate",
          "createdAt": "2026-11-28T06:51:21.001Z"
        }
      ],
      "lineage": [
        {
          "id": "lin_01m8gerdmt44nkzyh7nsxa2hhz",
          "fromKind": "green_lot",
          "fromId": "gl_01m8gerd69pt73yc5w4jjmcxq9",
          "toKind": "green_lot",
          "toId": "gl_01m8gerd1dddg2tafr4mjedmny",
          "weightKg": "20.000",
          "groupId": "grp_01m8gerdhbc66nqyv8at2mf9z3",
          "createdAt": "2026-11-28T06:51:21.001Z"
        },
        {
          "id": "lin_01m8gerdmtbvd9bwfzf4t399pv",
          "fromKind": "green_lot",
          "fromId": "gl_01m8gerdcqpx6k0m4e580jskxe",
          "toKind": "green_lot",
          "toId": "gl_01m8gerd1dddg2tafr4mjedmny",
          "weightKg": "7.000",
          "groupId": "grp_01m8gerdhbc66nqyv8at2mf9z3",
          "createdAt": "2026-11-28T06:51:21.001Z"
        }
      ]
    }
  },
  'inventory.green.releaseGreenLotReservation': {
    "input": {
      "id": "gl_01m8geramqar0ceqadrqgpjfz6",
      "weightKg": "15"
    },
    "output": {
      "lot": {
        "id": "gl_01m8geramqar0ceqadrqgpjfz6",
        "lotCode": "L-2611-11",
        "name": "Lot 11",
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
        "onHandKg": "25.000",
        "reservedKg": "5.000",
        "availableKg": "20.000",
        "openingKg": "25.000",
        "landedCost": null,
        "createdAt": "2026-11-28T06:51:18.038Z",
        "updatedAt": "2026-11-28T06:51:18.422Z",
        "balances": [
          {
            "locationId": "loc_01m8geqztxms7kcdncc2cv7ptv",
            "locationCode": "WH-HAFEN",
            "locationName": "Hafen green store",
            "onHandKg": "25.000",
            "updatedAt": "2026-11-28T06:51:18.038Z"
          }
        ]
      },
      "transactions": [
        {
          "id": "glt_01m8gerb1c9scpk9rjkczb285m",
          "greenLotId": "gl_01m8geramqar0ceqadrqgpjfz6",
          "seq": 3,
          "kind": "release",
          "locationId": null,
          "deltaKg": "0.000",
          "reservedDeltaKg": "-15.000",
          "groupId": null,
          "credentialId": "key_01m8geqwdfrjp8rh0w4a34vze1",
          "comment": null,
          "createdAt": "2026-11-28T06:51:18.422Z"
        }
      ]
    }
  },
  'inventory.green.reserveGreenLot': {
    "input": {
      "id": "gl_01m8geramqar0ceqadrqgpjfz6",
      "weightKg": "20",
      "comment": "order 88"
    },
    "output": {
      "lot": {
        "id": "gl_01m8geramqar0ceqadrqgpjfz6",
        "lotCode": "L-2611-11",
        "name": "Lot 11",
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
        "onHandKg": "25.000",
        "reservedKg": "20.000",
        "availableKg": "5.000",
        "openingKg": "25.000",
        "landedCost": null,
        "createdAt": "2026-11-28T06:51:18.038Z",
        "updatedAt": "2026-11-28T06:51:18.166Z",
        "balances": [
          {
            "locationId": "loc_01m8geqztxms7kcdncc2cv7ptv",
            "locationCode": "WH-HAFEN",
            "locationName": "Hafen green store",
            "onHandKg": "25.000",
            "updatedAt": "2026-11-28T06:51:18.038Z"
          }
        ]
      },
      "transactions": [
        {
          "id": "glt_01m8geras7cyg2jnmx4ar31021",
          "greenLotId": "gl_01m8geramqar0ceqadrqgpjfz6",
          "seq": 2,
          "kind": "reserve",
          "locationId": null,
          "deltaKg": "0.000",
          "reservedDeltaKg": "20.000",
          "groupId": null,
          "credentialId": "key_01m8geqwdfrjp8rh0w4a34vze1",
          "comment": "order 88",
          "createdAt": "2026-11-28T06:51:18.166Z"
        }
      ]
    }
  },
  'inventory.green.setGreenLotCostComponents': {
    "input": {
      "greenLotId": "gl_01m8gerk84n0x8gh8t0j5vwnmy",
      "components": [
        {
          "bucket": "price",
          "amount": "1000.00",
          "currency": "USD",
          "basis": "total",
          "description": "contract price"
        },
        {
          "bucket": "price",
          "amount": "0.1234",
          "currency": "USD",
          "basis": "per_kg",
          "description": "differential"
        },
        {
          "bucket": "freight",
          "amount": 215.5,
          "currency": "USD"
        }
      ]
    },
    "output": {
      "greenLotId": "gl_01m8gerk84n0x8gh8t0j5vwnmy",
      "version": 1,
      "currency": "USD",
      "buckets": {
        "price": "1037.0200",
        "freight": "215.5000",
        "duty": "0.0000",
        "carry": "3.1500",
        "other": "0.0000"
      },
      "total": "1255.6700",
      "perKg": "4.1856",
      "weightBasisKg": "300.000",
      "updatedAt": "2026-11-28T06:51:26.987Z",
      "components": [
        {
          "id": "gcc_01m8gerkd35m2je6rgeth8rr56",
          "bucket": "price",
          "amount": "1000.0000",
          "currency": "USD",
          "basis": "total",
          "description": "contract price",
          "createdAt": "2026-11-28T06:51:26.987Z"
        },
        {
          "id": "gcc_01m8gerkd3nz3xpdy0fvwwf201",
          "bucket": "price",
          "amount": "0.1234",
          "currency": "USD",
          "basis": "per_kg",
          "description": "differential",
          "createdAt": "2026-11-28T06:51:26.987Z"
        },
        {
          "id": "gcc_01m8gerkd3q9hek0crhyyea5et",
          "bucket": "freight",
          "amount": "215.5000",
          "currency": "USD",
          "basis": "total",
          "description": null,
          "createdAt": "2026-11-28T06:51:26.987Z"
        }
      ]
    }
  },
  'inventory.green.splitGreenLot': {
    "input": {
      "id": "gl_01m8gerbmzzmajnckt1c9xv29v",
      "weightKg": "45.5",
      "newLotCode": "SPLIT-CHILD-1",
      "comment": "for espresso"
    },
    "output": {
      "parent": {
        "id": "gl_01m8gerbmzzmajnckt1c9xv29v",
        "lotCode": "L-2611-13",
        "name": "Lot 13",
        "supplierRef": null,
        "producerId": "pro_01jq6c4f8h2k5m7p9r1t3v5x7z",
        "partnerId": "prt_01jq6c9d3f5h7k9m1p3r5t7v9x",
        "state": "parchment",
        "varieties": [
          "SL28",
          "SL34"
        ],
        "processMethod": "natural",
        "harvestYear": 2023,
        "certifications": [
          "fairtrade"
        ],
        "bagCount": null,
        "bagWeightKg": null,
        "unitCost": "6.5000",
        "currency": "EUR",
        "minWeightKg": null,
        "notes": null,
        "quarantined": false,
        "quarantineReason": null,
        "quarantine": null,
        "onHandKg": "54.500",
        "reservedKg": "0.000",
        "availableKg": "54.500",
        "openingKg": "100.000",
        "landedCost": null,
        "createdAt": "2026-11-28T06:51:19.070Z",
        "updatedAt": "2026-11-28T06:51:19.294Z",
        "balances": [
          {
            "locationId": "loc_01m8geqztxms7kcdncc2cv7ptv",
            "locationCode": "WH-HAFEN",
            "locationName": "Hafen green store",
            "onHandKg": "24.500",
            "updatedAt": "2026-11-28T06:51:19.294Z"
          },
          {
            "locationId": "loc_01m8ger193znstp490d44h0v74",
            "locationCode": "ROASTERY",
            "locationName": "Roastery floor",
            "onHandKg": "30.000",
            "updatedAt": "2026-11-28T06:51:19.163Z"
          }
        ]
      },
      "child": {
        "id": "gl_01m8gerbw9hwqk8fyq4e5negfs",
        "lotCode": "SPLIT-CHILD-1",
        "name": "Lot 13 (SPLIT-CHILD-1)",
        "supplierRef": null,
        "producerId": "pro_01jq6c4f8h2k5m7p9r1t3v5x7z",
        "partnerId": "prt_01jq6c9d3f5h7k9m1p3r5t7v9x",
        "state": "parchment",
        "varieties": [
          "SL28",
          "SL34"
        ],
        "processMethod": "natural",
        "harvestYear": 2023,
        "certifications": [
          "fairtrade"
        ],
        "bagCount": null,
        "bagWeightKg": null,
        "unitCost": "6.5000",
        "currency": "EUR",
        "minWeightKg": null,
        "notes": null,
        "quarantined": false,
        "quarantineReason": null,
        "quarantine": null,
        "onHandKg": "45.500",
        "reservedKg": "0.000",
        "availableKg": "45.500",
        "openingKg": "45.500",
        "landedCost": null,
        "createdAt": "2026-11-28T06:51:19.294Z",
        "updatedAt": "2026-11-28T06:51:19.294Z",
        "balances": [
          {
            "locationId": "loc_01m8geqztxms7kcdncc2cv7ptv",
            "locationCode": "WH-HAFEN",
            "locationName": "Hafen green store",
            "onHandKg": "45.500",
            "updatedAt": "2026-11-28T06:51:19.294Z"
          }
        ]
      },
      "groupId": "grp_01m8gerbwbmvwrkjydtpnfznz5",
      "transactions": [
        {
          "id": "glt_01m8gerbwbak25n1d6jxftfs9n",
          "greenLotId": "gl_01m8gerbmzzmajnckt1c9xv29v",
          "seq": 4,
          "kind": "split_out",
          "locationId": "loc_01m8geqztxms7kcdncc2cv7ptv",
          "deltaKg": "-45.500",
          "reservedDeltaKg": "0.000",
          "groupId": "grp_01m8gerbwbmvwrkjydtpnfznz5",
          "credentialId": "key_01m8geqwdfrjp8rh0w4a34vze1",
          "comment": "for espresso",
          "createdAt": "2026-11-28T06:51:19.294Z"
        },
        {
          "id": "glt_01m8gerbwb5zsamy59926jc1ez",
          "greenLotId": "gl_01m8gerbw9hwqk8fyq4e5negfs",
          "seq": 1,
          "kind": "split_in",
          "locationId": "loc_01m8geqztxms7kcdncc2cv7ptv",
          "deltaKg": "45.500",
          "reservedDeltaKg": "0.000",
          "groupId": "grp_01m8gerbwbmvwrkjydtpnfznz5",
          "credentialId": "key_01m8geqwdfrjp8rh0w4a34vze1",
          "comment": "for espresso",
          "createdAt": "2026-11-28T06:51:19.294Z"
        }
      ],
      "lineage": [
        {
          "id": "lin_01m8gerbx73gdk6nsa27gr5dn2",
          "fromKind": "green_lot",
          "fromId": "gl_01m8gerbmzzmajnckt1c9xv29v",
          "toKind": "green_lot",
          "toId": "gl_01m8gerbw9hwqk8fyq4e5negfs",
          "weightKg": "45.500",
          "groupId": "grp_01m8gerbwbmvwrkjydtpnfznz5",
          "createdAt": "2026-11-28T06:51:19.294Z"
        }
      ]
    }
  },
  'inventory.green.transferGreenLotToLocation': {
    "input": {
      "id": "gl_01m8ger9dzy4whszy6srvg7dd4",
      "fromLocationId": "loc_01m8geqztxms7kcdncc2cv7ptv",
      "toLocationId": "loc_01m8ger193znstp490d44h0v74",
      "weightKg": "12.5",
      "comment": "to warehouse"
    },
    "output": {
      "lot": {
        "id": "gl_01m8ger9dzy4whszy6srvg7dd4",
        "lotCode": "L-2611-8",
        "name": "Lot 8",
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
        "onHandKg": "30.000",
        "reservedKg": "0.000",
        "availableKg": "30.000",
        "openingKg": "30.000",
        "landedCost": null,
        "createdAt": "2026-11-28T06:51:16.797Z",
        "updatedAt": "2026-11-28T06:51:16.836Z",
        "balances": [
          {
            "locationId": "loc_01m8geqztxms7kcdncc2cv7ptv",
            "locationCode": "WH-HAFEN",
            "locationName": "Hafen green store",
            "onHandKg": "17.500",
            "updatedAt": "2026-11-28T06:51:16.836Z"
          },
          {
            "locationId": "loc_01m8ger193znstp490d44h0v74",
            "locationCode": "ROASTERY",
            "locationName": "Roastery floor",
            "onHandKg": "12.500",
            "updatedAt": "2026-11-28T06:51:16.836Z"
          }
        ]
      },
      "groupId": "grp_01m8ger9f6bn1bccm9dn20y257",
      "transactions": [
        {
          "id": "glt_01m8ger9f6q06sgbjcagxhzbkw",
          "greenLotId": "gl_01m8ger9dzy4whszy6srvg7dd4",
          "seq": 2,
          "kind": "transfer_out",
          "locationId": "loc_01m8geqztxms7kcdncc2cv7ptv",
          "deltaKg": "-12.500",
          "reservedDeltaKg": "0.000",
          "groupId": "grp_01m8ger9f6bn1bccm9dn20y257",
          "credentialId": "key_01m8geqwdfrjp8rh0w4a34vze1",
          "comment": "to warehouse",
          "createdAt": "2026-11-28T06:51:16.836Z"
        },
        {
          "id": "glt_01m8ger9f6m6x45zxfva7358mh",
          "greenLotId": "gl_01m8ger9dzy4whszy6srvg7dd4",
          "seq": 3,
          "kind": "transfer_in",
          "locationId": "loc_01m8ger193znstp490d44h0v74",
          "deltaKg": "12.500",
          "reservedDeltaKg": "0.000",
          "groupId": "grp_01m8ger9f6bn1bccm9dn20y257",
          "credentialId": "key_01m8geqwdfrjp8rh0w4a34vze1",
          "comment": "to warehouse",
          "createdAt": "2026-11-28T06:51:16.836Z"
        }
      ]
    }
  },
  'inventory.material.adjustMaterialQuantity': {
    "input": {
      "id": "mat_01m8gerq8zc6tn1a8bpnv690j3",
      "deltaQty": "100",
      "reason": "receive"
    },
    "output": {
      "material": {
        "id": "mat_01m8gerq8zc6tn1a8bpnv690j3",
        "sku": "TAPE",
        "name": "Tape (m)",
        "kind": "tape",
        "unitCost": null,
        "currency": null,
        "reorderPoint": "98.500",
        "reorderQty": null,
        "leadTimeDays": 7,
        "supplierPartnerId": null,
        "onHand": "100.000",
        "belowReorderPoint": false,
        "isActive": true,
        "createdAt": "2026-11-28T06:51:30.974Z",
        "updatedAt": "2026-11-28T06:51:31.158Z"
      },
      "transaction": {
        "id": "mtx_01m8gerqew0n220mbzmgf17ynn",
        "materialId": "mat_01m8gerq8zc6tn1a8bpnv690j3",
        "reason": "receive",
        "deltaQty": "100.000",
        "balanceAfter": "100.000",
        "locationId": null,
        "credentialId": "key_01m8gerq4p4n4dtm61vsf0tvq0",
        "comment": null,
        "createdAt": "2026-11-28T06:51:31.158Z"
      }
    }
  },
  'inventory.material.createMaterial': {
    "input": {
      "sku": "BAG-250-KRAFT",
      "name": "Kraft bag 250 g with valve",
      "kind": "bag",
      "unitCost": 0.185,
      "currency": "EUR",
      "reorderPoint": "500",
      "reorderQty": 2000,
      "leadTimeDays": 21,
      "supplierPartnerId": "ptn_01m8geskb82atk3y1j6sq6p86b"
    },
    "output": {
      "id": "mat_01m8geskxy62hjx3tdqftsj5qd",
      "sku": "BAG-250-KRAFT",
      "name": "Kraft bag 250 g with valve",
      "kind": "bag",
      "unitCost": "0.1850",
      "currency": "EUR",
      "reorderPoint": "500.000",
      "reorderQty": "2000.000",
      "leadTimeDays": 21,
      "supplierPartnerId": "ptn_01m8geskb82atk3y1j6sq6p86b",
      "onHand": "0.000",
      "belowReorderPoint": true,
      "isActive": true,
      "createdAt": "2026-11-28T06:52:00.310Z",
      "updatedAt": "2026-11-28T06:52:00.310Z"
    }
  },
  'inventory.material.explodeMaterialRequirements': {
    "input": {
      "productId": "prd_01m8gerq52f7wjhv6xj5nmt0yf",
      "quantity": 10
    },
    "output": {
      "productId": "prd_01m8gerq52f7wjhv6xj5nmt0yf",
      "quantity": 10,
      "billOfMaterials": {
        "id": "bom_01m8gerqg5v0txwjkkh0rx62yp",
        "version": 1,
        "yieldQty": 3
      },
      "materials": [
        {
          "materialId": "mat_01m8gerq71y7y9hpvgg336rgbx",
          "sku": "BAG",
          "name": "Bag",
          "kind": "bag",
          "quantityPerYield": "3.000",
          "wastePct": "2.50",
          "required": "10.250",
          "onHand": "12.000",
          "shortBy": "0.000",
          "remainingAfter": "1.750",
          "reorderPoint": "5.000",
          "fallsBelowReorderPoint": true,
          "leadTimeDays": 14
        },
        {
          "materialId": "mat_01m8gerq7xf26tmrd35yx5kxxg",
          "sku": "LBL",
          "name": "Label",
          "kind": "label",
          "quantityPerYield": "1.000",
          "wastePct": "0.00",
          "required": "3.334",
          "onHand": "3.000",
          "shortBy": "0.334",
          "remainingAfter": "-0.334",
          "reorderPoint": null,
          "fallsBelowReorderPoint": false,
          "leadTimeDays": 30
        },
        {
          "materialId": "mat_01m8gerq8zc6tn1a8bpnv690j3",
          "sku": "TAPE",
          "name": "Tape (m)",
          "kind": "tape",
          "quantityPerYield": "0.500",
          "wastePct": "10.00",
          "required": "1.834",
          "onHand": "100.000",
          "shortBy": "0.000",
          "remainingAfter": "98.166",
          "reorderPoint": "98.500",
          "fallsBelowReorderPoint": true,
          "leadTimeDays": 7
        }
      ],
      "summary": {
        "canProduce": false,
        "maxProducibleQuantity": 9,
        "shortMaterialCount": 1,
        "longestLeadTimeDays": 30
      }
    }
  },
  'inventory.material.getBillOfMaterials': {
    "input": {
      "productId": "prd_01m8gerkmgdt3s36a0nked2t4d"
    },
    "output": {
      "id": "bom_01m8germaaya8d89nwjp28cqmw",
      "productId": "prd_01m8gerkmgdt3s36a0nked2t4d",
      "version": 1,
      "name": "Retail 250 g",
      "yieldQty": 1,
      "publishedBy": "key_01m8gerjsfrrdn3z9a3f1qgnqj",
      "publishedAt": "2026-11-28T06:51:27.966Z",
      "retiredAt": null,
      "lines": [
        {
          "lineNo": 1,
          "materialId": "mat_01m8gerkvcyk8t6v0826pff41j",
          "materialSku": "BAG",
          "materialName": "Bag",
          "materialKind": "bag",
          "quantity": "1.000",
          "wastePct": "2.50"
        },
        {
          "lineNo": 2,
          "materialId": "mat_01m8germ0t8p8f34v359y2cs4t",
          "materialSku": "VALVE",
          "materialName": "Valve",
          "materialKind": "valve",
          "quantity": "1.000",
          "wastePct": "0.00"
        }
      ],
      "previousVersions": []
    }
  },
  'inventory.material.getMaterial': {
    "input": {
      "id": "mat_01m8gerq7xf26tmrd35yx5kxxg"
    },
    "output": {
      "id": "mat_01m8gerq7xf26tmrd35yx5kxxg",
      "sku": "LBL",
      "name": "Label",
      "kind": "label",
      "unitCost": null,
      "currency": null,
      "reorderPoint": null,
      "reorderQty": null,
      "leadTimeDays": 30,
      "supplierPartnerId": null,
      "onHand": "3.000",
      "belowReorderPoint": false,
      "isActive": true,
      "createdAt": "2026-11-28T06:51:30.940Z",
      "updatedAt": "2026-11-28T06:51:31.126Z"
    }
  },
  'inventory.material.listMaterials': {
    "input": {},
    "output": {
      "items": [
        {
          "id": "mat_01m8gesv658d21zgamsh8y77gw",
          "sku": "BAG-1KG",
          "name": "Bag 1 kg",
          "kind": "bag",
          "unitCost": null,
          "currency": null,
          "reorderPoint": "10.000",
          "reorderQty": null,
          "leadTimeDays": null,
          "supplierPartnerId": "ptn_01m8gesv3xn1r02mzvtw9qzh7j",
          "onHand": "0.000",
          "belowReorderPoint": true,
          "isActive": true,
          "createdAt": "2026-11-28T06:52:07.749Z",
          "updatedAt": "2026-11-28T06:52:07.749Z"
        },
        {
          "id": "mat_01m8gesv7xe5zfx4dx64m10bsp",
          "sku": "LBL-1KG",
          "name": "Label 1 kg",
          "kind": "label",
          "unitCost": null,
          "currency": null,
          "reorderPoint": "10.000",
          "reorderQty": null,
          "leadTimeDays": null,
          "supplierPartnerId": null,
          "onHand": "10.000",
          "belowReorderPoint": false,
          "isActive": true,
          "createdAt": "2026-11-28T06:52:07.804Z",
          "updatedAt": "2026-11-28T06:52:07.952Z"
        },
        {
          "id": "mat_01m8gesvara75fch2nrckpxnka",
          "sku": "TIN-250",
          "name": "Gift tin",
          "kind": "tin",
          "unitCost": null,
          "currency": null,
          "reorderPoint": null,
          "reorderQty": null,
          "leadTimeDays": null,
          "supplierPartnerId": "ptn_01m8gesv3xn1r02mzvtw9qzh7j",
          "onHand": "0.000",
          "belowReorderPoint": false,
          "isActive": true,
          "createdAt": "2026-11-28T06:52:07.869Z",
          "updatedAt": "2026-11-28T06:52:07.869Z"
        }
      ],
      "nextCursor": null
    }
  },
  'inventory.material.setBillOfMaterials': {
    "input": {
      "productId": "prd_01m8germr6cfhh4m0jnhqwqsf4",
      "name": "Gift box",
      "lines": [
        {
          "materialId": "mat_01m8germt5g0d78fb3ez5wbf0s",
          "quantity": 1
        }
      ]
    },
    "output": {
      "id": "bom_01m8gern5nexywf4f1hz300w6z",
      "productId": "prd_01m8germr6cfhh4m0jnhqwqsf4",
      "version": 1,
      "name": "Gift box",
      "yieldQty": 1,
      "publishedBy": "key_01m8germpxf3ehr0h1d1q6b6s9",
      "publishedAt": "2026-11-28T06:51:28.839Z",
      "retiredAt": null,
      "lines": [
        {
          "lineNo": 1,
          "materialId": "mat_01m8germt5g0d78fb3ez5wbf0s",
          "materialSku": "BOX-GIFT",
          "materialName": "Gift box",
          "materialKind": "box",
          "quantity": "1.000",
          "wastePct": "0.00"
        }
      ]
    }
  },
  'inventory.roast.adjustRoastedLotQuantity': {
    "input": {
      "id": "rl_01m8getgjdpyz8tk2yavb3v20j",
      "deltaKg": "-0.015",
      "reason": "shrinkage",
      "comment": "moisture loss found at the monthly stock count"
    },
    "output": {
      "lot": {
        "id": "rl_01m8getgjdpyz8tk2yavb3v20j",
        "lotCode": "R-R-2611-1",
        "form": "loose",
        "roastBatchId": "rb_01m8getg4j8c2n06zdsv38mz43",
        "batchNumber": "R-2611-1",
        "greenLotId": "gl_01m8getfh5wjqjezv190gzf23f",
        "greenLotCode": "L-2611-1",
        "profileId": null,
        "locationId": null,
        "roastedAt": "2015-08-10T12:25:14.000Z",
        "weightLossPct": "15.25",
        "shelfLifeDays": 90,
        "bestBefore": "2015-11-08",
        "openingKg": "1.395",
        "onHandKg": "1.280",
        "createdAt": "2026-11-28T06:52:29.132Z",
        "updatedAt": "2026-11-28T06:52:30.521Z",
        "expired": false
      },
      "transactions": [
        {
          "id": "rlt_01m8gethe08wfjxmpcg92y2ny8",
          "roastedLotId": "rl_01m8getgjdpyz8tk2yavb3v20j",
          "seq": 3,
          "kind": "shrinkage",
          "deltaKg": "-0.015",
          "credentialId": "key_01m8gete89zs62fpzf6x7gemmf",
          "comment": "moisture loss found at the monthly stock count",
          "createdAt": "2026-11-28T06:52:30.521Z"
        }
      ]
    }
  },
  'inventory.roast.getRoastedLot': {
    "input": {
      "id": "rl_01m8getgjdpyz8tk2yavb3v20j"
    },
    "output": {
      "id": "rl_01m8getgjdpyz8tk2yavb3v20j",
      "lotCode": "R-R-2611-1",
      "form": "loose",
      "roastBatchId": "rb_01m8getg4j8c2n06zdsv38mz43",
      "batchNumber": "R-2611-1",
      "greenLotId": "gl_01m8getfh5wjqjezv190gzf23f",
      "greenLotCode": "L-2611-1",
      "profileId": null,
      "locationId": null,
      "roastedAt": "2015-08-10T12:25:14.000Z",
      "weightLossPct": "15.25",
      "shelfLifeDays": 90,
      "bestBefore": "2015-11-08",
      "openingKg": "1.395",
      "onHandKg": "1.012",
      "createdAt": "2026-11-28T06:52:29.132Z",
      "updatedAt": "2026-11-28T06:52:31.175Z",
      "cost": {
        "currency": null,
        "greenCost": null,
        "perKg": null,
        "missing": "no_green_input",
        "greenInputs": [],
        "rule": "green cost = the current landed cost per kg of each green lot roasted into the lot × the kg charged of it (a blend: each component), summed; cost per kg = green cost / the lot’s roasted (opening) weight, 4 decimals half-up, so the roast loss is priced in"
      },
      "transactions": [
        {
          "id": "rlt_01m8getgk9sg790dqact1jak5m",
          "roastedLotId": "rl_01m8getgjdpyz8tk2yavb3v20j",
          "seq": 1,
          "kind": "roast_output",
          "deltaKg": "1.395",
          "credentialId": "key_01m8gete89zs62fpzf6x7gemmf",
          "comment": "roast batch R-2611-1",
          "createdAt": "2026-11-28T06:52:29.132Z"
        },
        {
          "id": "rlt_01m8geth6w52ctyz5zc689b7r5",
          "roastedLotId": "rl_01m8getgjdpyz8tk2yavb3v20j",
          "seq": 2,
          "kind": "sample_draw",
          "deltaKg": "-0.100",
          "credentialId": "key_01m8gete89zs62fpzf6x7gemmf",
          "comment": "300 g drawn for the cupping table",
          "createdAt": "2026-11-28T06:52:30.271Z"
        },
        {
          "id": "rlt_01m8gethe08wfjxmpcg92y2ny8",
          "roastedLotId": "rl_01m8getgjdpyz8tk2yavb3v20j",
          "seq": 3,
          "kind": "shrinkage",
          "deltaKg": "-0.015",
          "credentialId": "key_01m8gete89zs62fpzf6x7gemmf",
          "comment": "moisture loss found at the monthly stock count",
          "createdAt": "2026-11-28T06:52:30.521Z"
        }
      ],
      "cupping": null,
      "expired": false
    }
  },
  'inventory.roast.getRoastedLotTraceability': {
    "input": {
      "id": "rl_01m8gf142ct188qp9e8zb9c05e"
    },
    "output": {
      "roastedLot": {
        "id": "rl_01m8gf142ct188qp9e8zb9c05e",
        "lotCode": "R-B-2611-4",
        "form": "loose",
        "roastBatchId": "rb_01m8gf13yh9axsqgdh8trgnjmx",
        "batchNumber": "B-2611-4",
        "greenLotId": "gl_01m8gf13x4ge9v284kr37fn3we",
        "greenLotCode": "L-2611-9",
        "profileId": null,
        "locationId": null,
        "roastedAt": "2026-11-28T06:56:06.000Z",
        "weightLossPct": "20.00",
        "shelfLifeDays": 90,
        "bestBefore": "2027-02-26",
        "openingKg": "10.000",
        "onHandKg": "10.000",
        "createdAt": "2026-11-28T06:56:06.086Z",
        "updatedAt": "2026-11-28T06:56:06.086Z",
        "expired": false
      },
      "roastBatches": [
        {
          "id": "rb_01m8gf13yh9axsqgdh8trgnjmx",
          "machineId": null,
          "profileId": null,
          "startedAt": "2026-11-28T06:56:06.000Z",
          "greenLotId": "gl_01m8gf13x4ge9v284kr37fn3we",
          "batchNumber": "B-2611-4",
          "completedAt": "2026-11-28T06:56:06.086Z",
          "dropWeightKg": "10.000",
          "weightLossPct": "20.00",
          "chargeWeightKg": "12.500"
        }
      ],
      "greenLots": [
        {
          "id": "gl_01m8gf13x4ge9v284kr37fn3we",
          "name": "Lot 9",
          "state": "green",
          "lotCode": "L-2611-9",
          "varieties": [],
          "producerId": null,
          "harvestYear": null,
          "processMethod": null,
          "certifications": []
        }
      ],
      "producers": [],
      "cupScores": [],
      "chain": {
        "nodes": [
          {
            "kind": "roasted_lot",
            "id": "rl_01m8gf142ct188qp9e8zb9c05e",
            "depth": 0,
            "label": "R-B-2611-4"
          },
          {
            "kind": "roast_batch",
            "id": "rb_01m8gf13yh9axsqgdh8trgnjmx",
            "depth": 1,
            "label": "B-2611-4"
          },
          {
            "kind": "green_lot",
            "id": "gl_01m8gf13x4ge9v284kr37fn3we",
            "depth": 2,
            "label": "L-2611-9 (Lot 9)"
          }
        ],
        "edges": [
          {
            "from": "rb_01m8gf13yh9axsqgdh8trgnjmx",
            "to": "rl_01m8gf142ct188qp9e8zb9c05e",
            "weightKg": "10.000",
            "groupId": "rb_01m8gf13yh9axsqgdh8trgnjmx",
            "createdAt": "2026-11-28T06:56:06.086Z"
          },
          {
            "from": "gl_01m8gf13x4ge9v284kr37fn3we",
            "to": "rb_01m8gf13yh9axsqgdh8trgnjmx",
            "weightKg": "12.500",
            "groupId": "rb_01m8gf13yh9axsqgdh8trgnjmx",
            "createdAt": "2026-11-28T06:56:06.086Z"
          }
        ],
        "steps": [
          "Green lot L-2611-9 (Lot 9) -> roast batch B-2611-4",
          "Roast batch B-2611-4 -> roasted lot R-B-2611-4"
        ],
        "depthLimitReached": false
      }
    }
  },
  'inventory.roast.listRoastedLots': {
    "input": {
      "filter": {
        "form": "loose"
      },
      "page": {}
    },
    "output": {
      "items": [
        {
          "id": "rl_01m8getv8bppqbyf9bf5cmbpkq",
          "lotCode": "R-ETH-7",
          "form": "loose",
          "roastBatchId": "rb_01m8gettjr73vh58tv01728mv0",
          "batchNumber": "ETH-7",
          "greenLotId": "gl_01m8getszyasqj9xbsvndvwjen",
          "greenLotCode": "L-2611-6",
          "profileId": null,
          "locationId": null,
          "roastedAt": "2026-02-21T16:00:48.000Z",
          "weightLossPct": "15.56",
          "shelfLifeDays": 90,
          "bestBefore": "2026-05-22",
          "openingKg": "0.190",
          "onHandKg": "0.190",
          "createdAt": "2026-11-28T06:52:39.619Z",
          "updatedAt": "2026-11-28T06:52:39.619Z",
          "expired": false
        },
        {
          "id": "rl_01m8getsymjvj8nzgskgyvjmew",
          "lotCode": "R-R-2611-6",
          "form": "loose",
          "roastBatchId": "rb_01m8getsqm2xxjdqek32kbzb59",
          "batchNumber": "R-2611-6",
          "greenLotId": "gl_01m8getsa5sxvmdm51c8x85vbg",
          "greenLotCode": "L-2611-5",
          "profileId": null,
          "locationId": "loc_01m8getq0x2x0w89q399bgkn08",
          "roastedAt": "2024-09-14T04:07:56.785Z",
          "weightLossPct": "13.76",
          "shelfLifeDays": 90,
          "bestBefore": "2024-12-13",
          "openingKg": "0.395",
          "onHandKg": "0.000",
          "createdAt": "2026-11-28T06:52:38.891Z",
          "updatedAt": "2026-11-28T06:52:41.122Z",
          "expired": false
        },
        {
          "id": "rl_01m8getrh22ffex2aqx3pzkjch",
          "lotCode": "R-R-2611-5",
          "form": "loose",
          "roastBatchId": "rb_01m8getr9bfpndtjezerxeg8x2",
          "batchNumber": "R-2611-5",
          "greenLotId": "gl_01m8getqp8dgktmvexyvvnrmc7",
          "greenLotCode": "L-2611-4",
          "profileId": "prf_01m8getqccdjrfbak3mzq5gpa2",
          "locationId": null,
          "roastedAt": "2015-08-10T12:25:14.000Z",
          "weightLossPct": "15.25",
          "shelfLifeDays": 90,
          "bestBefore": "2015-11-08",
          "openingKg": "1.395",
          "onHandKg": "1.395",
          "createdAt": "2026-11-28T06:52:37.538Z",
          "updatedAt": "2026-11-28T06:52:37.538Z",
          "expired": false
        }
      ],
      "nextCursor": null
    }
  },
};
