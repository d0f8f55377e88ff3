import type { OperationExamples } from '../../rpc/examples.js';

/** A request and its answer for each of the module's operations, shown in the API reference (checked against the schemas by test/examples.test.ts). */
export const examples: OperationExamples = {
  'traceability.issueCertificate': {
    "input": {
      "roastedLotId": "rl_01m8gf142ct188qp9e8zb9c05e"
    },
    "output": {
      "id": "cert_01m8gf15bzw74qf3z4a2q4tn4q",
      "roastedLotId": "rl_01m8gf142ct188qp9e8zb9c05e",
      "orderLineId": null,
      "fulfillmentId": null,
      "token": "qnxRG1mjDD5g28sByPLAFg",
      "publicPath": "/c/qnxRG1mjDD5g28sByPLAFg",
      "qrSvgPath": "/c/qnxRG1mjDD5g28sByPLAFg/qr.svg",
      "qrPngPath": "/c/qnxRG1mjDD5g28sByPLAFg/qr.png",
      "issuedAt": "2026-11-28T06:56:07.550Z",
      "snapshot": {
        "chain": {
          "edges": [
            {
              "to": "rl_01m8gf142ct188qp9e8zb9c05e",
              "from": "rb_01m8gf13yh9axsqgdh8trgnjmx",
              "groupId": "rb_01m8gf13yh9axsqgdh8trgnjmx",
              "weightKg": "10.000",
              "createdAt": "2026-11-28T06:56:06.086Z"
            },
            {
              "to": "rb_01m8gf13yh9axsqgdh8trgnjmx",
              "from": "gl_01m8gf13x4ge9v284kr37fn3we",
              "groupId": "rb_01m8gf13yh9axsqgdh8trgnjmx",
              "weightKg": "12.500",
              "createdAt": "2026-11-28T06:56:06.086Z"
            }
          ],
          "nodes": [
            {
              "id": "rl_01m8gf142ct188qp9e8zb9c05e",
              "kind": "roasted_lot",
              "depth": 0,
              "label": "R-B-2611-4"
            },
            {
              "id": "rb_01m8gf13yh9axsqgdh8trgnjmx",
              "kind": "roast_batch",
              "depth": 1,
              "label": "B-2611-4"
            },
            {
              "id": "gl_01m8gf13x4ge9v284kr37fn3we",
              "kind": "green_lot",
              "depth": 2,
              "label": "L-2611-9 (Lot 9)"
            }
          ],
          "steps": [
            "Green lot L-2611-9 (Lot 9) -> roast batch B-2611-4",
            "Roast batch B-2611-4 -> roasted lot R-B-2611-4"
          ],
          "depthLimitReached": false
        },
        "issuedAt": "2026-11-28T06:56:07.550Z",
        "cupScores": [
          {
            "id": "gl_01m8gf13x4ge9v284kr37fn3we",
            "kind": "green_lot",
            "meanScore": "82.50",
            "cupperCount": 2,
            "finalizedAt": "2026-11-28T06:56:07.148Z",
            "sessionNumber": "CS-2611-18"
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
        "orderLine": null,
        "producers": [],
        "roastedLot": {
          "id": "rl_01m8gf142ct188qp9e8zb9c05e",
          "form": "loose",
          "lotCode": "R-B-2611-4",
          "onHandKg": "10.000",
          "createdAt": "2026-11-28T06:56:06.086Z",
          "openingKg": "10.000",
          "profileId": null,
          "roastedAt": "2026-11-28T06:56:06.000Z",
          "updatedAt": "2026-11-28T06:56:06.086Z",
          "bestBefore": "2027-02-26",
          "greenLotId": "gl_01m8gf13x4ge9v284kr37fn3we",
          "locationId": null,
          "batchNumber": "B-2611-4",
          "greenLotCode": "L-2611-9",
          "roastBatchId": "rb_01m8gf13yh9axsqgdh8trgnjmx",
          "shelfLifeDays": 90,
          "weightLossPct": "20.00"
        },
        "fulfillment": null,
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
        ]
      }
    }
  },
  'traceability.listCertificates': {
    "input": {
      "filter": {
        "roastedLotId": "rl_01m8gf5rqqbeey50z71bdre4th"
      }
    },
    "output": {
      "items": [
        {
          "id": "cert_01m8gf5sfh4kkyk40vxn1tr6m7",
          "roastedLotId": "rl_01m8gf5rqqbeey50z71bdre4th",
          "orderLineId": null,
          "fulfillmentId": null,
          "token": "fi1jK6mnG07CJu4kzVroog",
          "publicPath": "/c/fi1jK6mnG07CJu4kzVroog",
          "qrSvgPath": "/c/fi1jK6mnG07CJu4kzVroog/qr.svg",
          "qrPngPath": "/c/fi1jK6mnG07CJu4kzVroog/qr.png",
          "issuedAt": "2026-11-28T06:58:39.217Z",
          "snapshot": {
            "chain": {
              "edges": [
                {
                  "to": "rl_01m8gf5rqqbeey50z71bdre4th",
                  "from": "rb_01m8gf5rat1nhjpp4qqv34a357",
                  "groupId": "rb_01m8gf5rat1nhjpp4qqv34a357",
                  "weightKg": "3.000",
                  "createdAt": "2026-11-28T06:58:38.010Z"
                },
                {
                  "to": "rb_01m8gf5rat1nhjpp4qqv34a357",
                  "from": "gl_01m8gf5r035e3depk3v9z4t4a9",
                  "groupId": "rb_01m8gf5rat1nhjpp4qqv34a357",
                  "weightKg": "3.750",
                  "createdAt": "2026-11-28T06:58:38.010Z"
                }
              ],
              "nodes": [
                {
                  "id": "rl_01m8gf5rqqbeey50z71bdre4th",
                  "kind": "roasted_lot",
                  "depth": 0,
                  "label": "R-B-2611-16"
                },
                {
                  "id": "rb_01m8gf5rat1nhjpp4qqv34a357",
                  "kind": "roast_batch",
                  "depth": 1,
                  "label": "B-2611-16"
                },
                {
                  "id": "gl_01m8gf5r035e3depk3v9z4t4a9",
                  "kind": "green_lot",
                  "depth": 2,
                  "label": "L-2611-4 (Lot 4)"
                }
              ],
              "steps": [
                "Green lot L-2611-4 (Lot 4) -> roast batch B-2611-16",
                "Roast batch B-2611-16 -> roasted lot R-B-2611-16"
              ],
              "depthLimitReached": false
            },
            "issuedAt": "2026-11-28T06:58:39.217Z",
            "cupScores": [],
            "greenLots": [
              {
                "id": "gl_01m8gf5r035e3depk3v9z4t4a9",
                "name": "Lot 4",
                "state": "green",
                "lotCode": "L-2611-4",
                "varieties": [],
                "producerId": null,
                "harvestYear": null,
                "processMethod": null,
                "certifications": []
              }
            ],
            "orderLine": null,
            "producers": [],
            "roastedLot": {
              "id": "rl_01m8gf5rqqbeey50z71bdre4th",
              "form": "loose",
              "lotCode": "R-B-2611-16",
              "onHandKg": "3.000",
              "createdAt": "2026-11-28T06:58:38.010Z",
              "openingKg": "3.000",
              "profileId": null,
              "roastedAt": "2026-11-28T06:58:37.000Z",
              "updatedAt": "2026-11-28T06:58:38.010Z",
              "bestBefore": "2027-02-26",
              "greenLotId": "gl_01m8gf5r035e3depk3v9z4t4a9",
              "locationId": null,
              "batchNumber": "B-2611-16",
              "greenLotCode": "L-2611-4",
              "roastBatchId": "rb_01m8gf5rat1nhjpp4qqv34a357",
              "shelfLifeDays": 90,
              "weightLossPct": "20.00"
            },
            "fulfillment": null,
            "roastBatches": [
              {
                "id": "rb_01m8gf5rat1nhjpp4qqv34a357",
                "machineId": null,
                "profileId": null,
                "startedAt": "2026-11-28T06:58:37.000Z",
                "greenLotId": "gl_01m8gf5r035e3depk3v9z4t4a9",
                "batchNumber": "B-2611-16",
                "completedAt": "2026-11-28T06:58:38.010Z",
                "dropWeightKg": "3.000",
                "weightLossPct": "20.00",
                "chargeWeightKg": "3.750"
              }
            ]
          }
        },
        {
          "id": "cert_01m8gf5sbssffqd2s4tx60pwgh",
          "roastedLotId": "rl_01m8gf5rqqbeey50z71bdre4th",
          "orderLineId": null,
          "fulfillmentId": null,
          "token": "NqJW29iRjD4GxfBvRXvQMw",
          "publicPath": "/c/NqJW29iRjD4GxfBvRXvQMw",
          "qrSvgPath": "/c/NqJW29iRjD4GxfBvRXvQMw/qr.svg",
          "qrPngPath": "/c/NqJW29iRjD4GxfBvRXvQMw/qr.png",
          "issuedAt": "2026-11-28T06:58:39.096Z",
          "snapshot": {
            "chain": {
              "edges": [
                {
                  "to": "rl_01m8gf5rqqbeey50z71bdre4th",
                  "from": "rb_01m8gf5rat1nhjpp4qqv34a357",
                  "groupId": "rb_01m8gf5rat1nhjpp4qqv34a357",
                  "weightKg": "3.000",
                  "createdAt": "2026-11-28T06:58:38.010Z"
                },
                {
                  "to": "rb_01m8gf5rat1nhjpp4qqv34a357",
                  "from": "gl_01m8gf5r035e3depk3v9z4t4a9",
                  "groupId": "rb_01m8gf5rat1nhjpp4qqv34a357",
                  "weightKg": "3.750",
                  "createdAt": "2026-11-28T06:58:38.010Z"
                }
              ],
              "nodes": [
                {
                  "id": "rl_01m8gf5rqqbeey50z71bdre4th",
                  "kind": "roasted_lot",
                  "depth": 0,
                  "label": "R-B-2611-16"
                },
                {
                  "id": "rb_01m8gf5rat1nhjpp4qqv34a357",
                  "kind": "roast_batch",
                  "depth": 1,
                  "label": "B-2611-16"
                },
                {
                  "id": "gl_01m8gf5r035e3depk3v9z4t4a9",
                  "kind": "green_lot",
                  "depth": 2,
                  "label": "L-2611-4 (Lot 4)"
                }
              ],
              "steps": [
                "Green lot L-2611-4 (Lot 4) -> roast batch B-2611-16",
                "Roast batch B-2611-16 -> roasted lot R-B-2611-16"
              ],
              "depthLimitReached": false
            },
            "issuedAt": "2026-11-28T06:58:39.096Z",
            "cupScores": [],
            "greenLots": [
              {
                "id": "gl_01m8gf5r035e3depk3v9z4t4a9",
                "name": "Lot 4",
                "state": "green",
                "lotCode": "L-2611-4",
                "varieties": [],
                "producerId": null,
                "harvestYear": null,
                "processMethod": null,
                "certifications": []
              }
            ],
            "orderLine": null,
            "producers": [],
            "roastedLot": {
              "id": "rl_01m8gf5rqqbeey50z71bdre4th",
              "form": "loose",
              "lotCode": "R-B-2611-16",
              "onHandKg": "3.000",
              "createdAt": "2026-11-28T06:58:38.010Z",
              "openingKg": "3.000",
              "profileId": null,
              "roastedAt": "2026-11-28T06:58:37.000Z",
              "updatedAt": "2026-11-28T06:58:38.010Z",
              "bestBefore": "2027-02-26",
              "greenLotId": "gl_01m8gf5r035e3depk3v9z4t4a9",
              "locationId": null,
              "batchNumber": "B-2611-16",
              "greenLotCode": "L-2611-4",
              "roastBatchId": "rb_01m8gf5rat1nhjpp4qqv34a357",
              "shelfLifeDays": 90,
              "weightLossPct": "20.00"
            },
            "fulfillment": null,
            "roastBatches": [
              {
                "id": "rb_01m8gf5rat1nhjpp4qqv34a357",
                "machineId": null,
                "profileId": null,
                "startedAt": "2026-11-28T06:58:37.000Z",
                "greenLotId": "gl_01m8gf5r035e3depk3v9z4t4a9",
                "batchNumber": "B-2611-16",
                "completedAt": "2026-11-28T06:58:38.010Z",
                "dropWeightKg": "3.000",
                "weightLossPct": "20.00",
                "chargeWeightKg": "3.750"
              }
            ]
          }
        }
      ],
      "nextCursor": null
    }
  },
  'traceability.traceBackward': {
    "input": {
      "kind": "green_lot",
      "id": "gl_01m8gf2kvkpegk07ff2zgpqfkm"
    },
    "output": {
      "direction": "backward",
      "start": {
        "kind": "green_lot",
        "id": "gl_01m8gf2kvkpegk07ff2zgpqfkm",
        "depth": 0,
        "label": "LOT-2611-22 (Ethiopia, Guji (GC-2611-20/1))"
      },
      "nodes": [
        {
          "kind": "green_lot",
          "id": "gl_01m8gf2kvkpegk07ff2zgpqfkm",
          "depth": 0,
          "label": "LOT-2611-22 (Ethiopia, Guji (GC-2611-20/1))"
        },
        {
          "kind": "contract",
          "id": "gc_01m8gf2kd9ysgg8n8j2rr4bq3s",
          "depth": 1,
          "label": "GC-2611-20"
        },
        {
          "kind": "producer",
          "id": "pdr_01m8gf2k7tv2r4sktjes0jm994",
          "depth": 1,
          "label": "Finca La Esperanza"
        }
      ],
      "edges": [
        {
          "from": "pdr_01m8gf2k7tv2r4sktjes0jm994",
          "to": "gl_01m8gf2kvkpegk07ff2zgpqfkm",
          "weightKg": "598.400",
          "createdAt": "2026-11-28T06:56:55.117Z"
        },
        {
          "from": "gc_01m8gf2kd9ysgg8n8j2rr4bq3s",
          "to": "gl_01m8gf2kvkpegk07ff2zgpqfkm",
          "weightKg": "598.400",
          "groupId": "gcs_01m8gf2kn6p70h442sebm3h9xa",
          "createdAt": "2026-11-28T06:56:55.117Z"
        }
      ],
      "steps": [
        "Contract GC-2611-20 + producer Farm PR-2611-19 -> green lot LOT-2611-22 (Ethiopia, Guji (GC-2611-20/1))"
      ],
      "customers": [],
      "depthLimit": 50,
      "depthLimitReached": false
    }
  },
  'traceability.traceForward': {
    "input": {
      "kind": "producer",
      "id": "pdr_01m8gf6hwk5g9gw7yk6fyxnj77"
    },
    "output": {
      "direction": "forward",
      "start": {
        "kind": "producer",
        "id": "pdr_01m8gf6hwk5g9gw7yk6fyxnj77",
        "depth": 0,
        "label": "Finca La Esperanza"
      },
      "nodes": [
        {
          "kind": "producer",
          "id": "pdr_01m8gf6hwk5g9gw7yk6fyxnj77",
          "depth": 0,
          "label": "Finca La Esperanza"
        },
        {
          "kind": "green_lot",
          "id": "gl_01m8gf6m2g2z13a6as8vazr4ph",
          "depth": 1,
          "label": "GL-2-2611-4 (Colombia Huila)"
        },
        {
          "kind": "green_lot",
          "id": "gl_01m8gf6mgjsfrcnb6088zh0jp0",
          "depth": 2,
          "label": "GL-1B-2611-5 (Gerba Huila base)"
        }
      ],
      "edges": [
        {
          "from": "pdr_01m8gf6hwk5g9gw7yk6fyxnj77",
          "to": "gl_01m8gf6m2g2z13a6as8vazr4ph",
          "weightKg": "60.000",
          "createdAt": "2026-11-28T06:59:06.412Z"
        },
        {
          "from": "gl_01m8gf6m2g2z13a6as8vazr4ph",
          "to": "gl_01m8gf6mgjsfrcnb6088zh0jp0",
          "weightKg": "60.000",
          "groupId": "grp_01m8gf6n9czjz2qje00srnrytq",
          "createdAt": "2026-11-28T06:59:07.600Z"
        },
        {
          "from": "gl_01m8gf6mgjsfrcnb6088zh0jp0",
          "to": "rb_01m8gf6qc4fad5cgjkckd3yy51",
          "weightKg": "10.000",
          "groupId": "rb_01m8gf6qc4fad5cgjkckd3yy51",
          "createdAt": "2026-11-28T06:59:09.800Z"
        }
      ],
      "steps": [
        "Producer Finca La Esperanza -> green lot GL-2-2611-4 (Colombia Huila)",
        "Green lot GL-2-2611-4 (Colombia Huila) -> green lot GL-1B-2611-5 (Gerba Huila base)",
        "Green lot GL-1B-2611-5 (Gerba Huila base) -> roast batch B-2611-7"
      ],
      "customers": [
        {
          "id": "cus_01m8gf6re5rwjnpxckszwb3hgk",
          "code": "C-2611-9",
          "name": "Rösterei Süd",
          "orderLineIds": [
            "sol_01m8gf6tr7ttsmfj6dg3g4svvv"
          ]
        }
      ],
      "depthLimit": 50,
      "depthLimitReached": false
    }
  },
  "inventory.green.declareOrigin": {
    "input": {
      "subject": {
        "kind": "green_lot",
        "id": "gl_01m8gf13x4ge9v284kr37fn3we"
      },
      "plotIds": [
        "plot_01m8gh2k3r5t7v9x1z3b5d7f9h"
      ],
      "upstreamStatements": [
        {
          "referenceNumber": "25ETCQ1A2B3C4",
          "verificationNumber": "VX9K2LQM"
        }
      ]
    },
    "output": {
      "subject": {
        "kind": "green_lot",
        "id": "gl_01m8gf13x4ge9v284kr37fn3we"
      },
      "plotIds": [
        "plot_01m8gh2k3r5t7v9x1z3b5d7f9h"
      ],
      "producerIds": [],
      "upstreamStatements": [
        {
          "referenceNumber": "25ETCQ1A2B3C4",
          "verificationNumber": "VX9K2LQM"
        }
      ],
      "declaredAt": "2026-11-28T07:03:40.118Z"
    }
  },
  "inventory.green.getOriginDeclaration": {
    "input": {
      "kind": "green_lot",
      "id": "gl_01m8gf13x4ge9v284kr37fn3we"
    },
    "output": {
      "subject": {
        "kind": "green_lot",
        "id": "gl_01m8gf13x4ge9v284kr37fn3we"
      },
      "plotIds": [
        "plot_01m8gh2k3r5t7v9x1z3b5d7f9h"
      ],
      "producerIds": [],
      "upstreamStatements": [
        {
          "referenceNumber": "25ETCQ1A2B3C4",
          "verificationNumber": "VX9K2LQM"
        }
      ],
      "declaredAt": "2026-11-28T07:03:40.118Z"
    }
  },
  "traceability.getDueDiligenceStatement": {
    "input": {
      "kind": "order_line",
      "id": "ol_01m8gf1a2b3c4d5e6f7g8h9j0k"
    },
    "output": {
      "subject": {
        "kind": "order_line",
        "id": "ol_01m8gf1a2b3c4d5e6f7g8h9j0k",
        "label": "SO-2611-7 line 1"
      },
      "operator": {
        "name": "Rösterei Firstcrack GmbH",
        "country": "DE",
        "eori": "DE123456789012345",
        "gs1CompanyPrefix": "4012345",
        "gtins": {
          "green_lot": "04012345000016",
          "roasted_lot": "04012345000023"
        },
        "recorded": true
      },
      "activityType": "domestic",
      "commodity": {
        "hsCode": "0901",
        "hsSubheading": "090121",
        "description": "Coffee, roasted, not decaffeinated"
      },
      "netMassKg": "5.000",
      "countriesOfProduction": [
        "ET"
      ],
      "upstreamStatements": [
        {
          "referenceNumber": "25ETCQ1A2B3C4",
          "verificationNumber": "VX9K2LQM"
        }
      ],
      "geolocation": {
        "type": "FeatureCollection",
        "features": [
          {
            "type": "Feature",
            "properties": {
              "ProducerName": "Gerba Cooperative",
              "ProducerCountry": "ET",
              "ProductionPlace": "Gerba hill"
            },
            "geometry": {
              "type": "Polygon",
              "coordinates": [
                [
                  [
                    38.738612,
                    6.560413
                  ],
                  [
                    38.744035,
                    6.560413
                  ],
                  [
                    38.744035,
                    6.565836
                  ],
                  [
                    38.738612,
                    6.565836
                  ],
                  [
                    38.738612,
                    6.560413
                  ]
                ]
              ]
            }
          }
        ]
      },
      "geolocationBytes": 265,
      "gaps": [],
      "complete": true
    }
  },
  "traceability.exportEpcis": {
    "input": {
      "direction": "backward",
      "kind": "roasted_lot",
      "id": "rl_01m8gf142ct188qp9e8zb9c05e"
    },
    "output": {
      "@context": [
        "https://ref.gs1.org/standards/epcis/epcis-context.jsonld",
        {
          "fc": "https://trace.example.com/ns/epcis#"
        }
      ],
      "type": "EPCISDocument",
      "schemaVersion": "2.0",
      "creationDate": "2026-11-28T07:05:00.000Z",
      "epcisBody": {
        "eventList": [
          {
            "type": "ObjectEvent",
            "eventTime": "2026-11-28T06:56:05.912Z",
            "eventTimeZoneOffset": "+01:00",
            "action": "ADD",
            "quantityList": [
              {
                "epcClass": "https://id.gs1.org/01/04012345000016/10/L-2611-9",
                "quantity": 100,
                "uom": "KGM"
              }
            ],
            "bizStep": "commissioning",
            "disposition": "active",
            "readPoint": {
              "id": "https://id.gs1.org/414/4012345000009"
            },
            "bizLocation": {
              "id": "https://id.gs1.org/414/4012345000009"
            },
            "ilmd": {
              "cbvmda:countryOfOrigin": "ET",
              "fc:plots": [
                {
                  "id": "https://trace.example.com/id/org_01m8gf0a/plot/plot_01m8gh2k3r5t7v9x1z3b5d7f9h",
                  "name": "Gerba hill",
                  "producer": "Gerba Cooperative",
                  "country": "ET",
                  "areaHa": 36
                }
              ]
            }
          },
          {
            "type": "TransformationEvent",
            "eventTime": "2026-11-28T06:56:06.086Z",
            "eventTimeZoneOffset": "+01:00",
            "inputQuantityList": [
              {
                "epcClass": "https://id.gs1.org/01/04012345000016/10/L-2611-9",
                "quantity": 12.5,
                "uom": "KGM"
              }
            ],
            "outputQuantityList": [
              {
                "epcClass": "https://id.gs1.org/01/04012345000023/10/R-B-2611-4",
                "quantity": 10,
                "uom": "KGM"
              }
            ],
            "transformationID": "https://trace.example.com/id/org_01m8gf0a/roast-batch/rb_01m8gf13yh9axsqgdh8trgnjmx",
            "bizStep": "commissioning",
            "disposition": "active",
            "readPoint": {
              "id": "https://trace.example.com/id/org_01m8gf0a/machine/mch_01m8gf0q"
            },
            "bizLocation": {
              "id": "https://id.gs1.org/414/4012345000009"
            },
            "fc:batchNumber": "B-2611-4"
          }
        ]
      }
    }
  },
  "catalog.party.setOperatorIdentity": {
    "input": {
      "name": "Rösterei Firstcrack GmbH",
      "country": "DE",
      "eori": "DE123456789012345",
      "gs1CompanyPrefix": "4012345",
      "gtins": {
        "green_lot": "04012345000016",
        "roasted_lot": "04012345000023"
      }
    },
    "output": {
      "name": "Rösterei Firstcrack GmbH",
      "country": "DE",
      "eori": "DE123456789012345",
      "gs1CompanyPrefix": "4012345",
      "gtins": {
        "green_lot": "04012345000016",
        "roasted_lot": "04012345000023"
      },
      "recorded": true
    }
  },
  "catalog.party.getOperatorIdentity": {
    "input": {},
    "output": {
      "name": "Rösterei Firstcrack GmbH",
      "country": "DE",
      "eori": "DE123456789012345",
      "gs1CompanyPrefix": "4012345",
      "gtins": {
        "green_lot": "04012345000016",
        "roasted_lot": "04012345000023"
      },
      "recorded": true
    }
  },
};
